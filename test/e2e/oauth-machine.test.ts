/**
 * A machine grant on the built CLI, each step its own process: the server's authorization server issues tokens only
 * for the client_credentials grant (HTTP Basic), and the config names the grant and the client id and asks for the
 * client secret (`{"ask": ..., "secret": true}`), never writing it down. The first `mcpx call` exits 75 with mcpx's
 * question for the secret; another process answers it; the call completes with a token the grant gave, and nobody
 * signs in. A later call in a fresh process (MCPX_DAEMON=inline) uses the stored token: no new token request. The
 * secret is in no output and in no file but the 0600 secret-store file.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'test', 'fixtures', 'servers', 'protected-http.mjs');
const clientSecret = `cs_${randomBytes(12).toString('hex')}`;
const home = mkdtempSync(join(tmpdir(), 'mcpx-oauth-machine-'));
const configDir = join(home, 'config');
const stateDir = join(home, 'state');

let server: ChildProcess;
let origin: string;

function mcpx(
  args: string[],
  input = '',
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    MCPX_CONFIG_DIR: configDir,
    MCPX_STATE_DIR: stateDir,
    MCPX_SECRET_STORE: 'file',
    ...extraEnv,
  };
  return new Promise((done) => {
    const child = execFile(process.execPath, [cli, ...args], { cwd: home, env, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

function filesHolding(dir: string, text: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => readFileSync(path).includes(text));
}

const stats = async (): Promise<{ token: { client_credentials: number; authorization_code: number }; register: number }> =>
  (await fetch(`${origin}/stats`)).json() as never;

beforeAll(async () => {
  server = spawn(process.execPath, [fixture, '--client-credentials'], {
    env: { ...process.env, FIXTURE_CLIENT_ID: 'svc-reporting', FIXTURE_CLIENT_SECRET: clientSecret },
  });
  const url = await new Promise<string>((done) => createInterface({ input: server.stdout! }).once('line', done));
  origin = new URL(url).origin;
  mkdirSync(configDir);
  const oauth = {
    grant: 'client_credentials',
    clientId: 'svc-reporting',
    clientSecret: { ask: 'Notes client secret', secret: true },
  };
  writeFileSync(join(configDir, 'mcpx.json'), JSON.stringify({ mcpServers: { notes: { url, oauth } } }));
});

afterAll(async () => {
  await mcpx(['daemon', 'stop']);
  server?.kill();
});

describe('the client_credentials grant', () => {
  it('asks for the client secret once, gets a token with it, and reuses the stored token', async () => {
    const call = await mcpx(['call', 'notes.whoami']);
    expect(call.code, call.stderr).toBe(75);
    expect(call.stdout).toContain('Notes client secret');
    expect(call.stdout).toContain('oauth.clientSecret');
    const elicit = /mcpx elicit answer (elc-[0-9a-f]{16})/.exec(call.stdout)![1]!;
    const task = /mcpx task result (tsk-[0-9a-f]{16})/.exec(call.stdout)![1]!;

    const answer = await mcpx(['elicit', 'answer', elicit, '-'], JSON.stringify({ value: clientSecret }));
    expect(answer.code, answer.stderr).toBe(0);
    const result = await mcpx(['task', 'result', task, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).structuredContent.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await stats()).toMatchObject({ token: { client_credentials: 1, authorization_code: 0 }, register: 0 });

    // Another process, no daemon: the secret and the token come from the secret store; nothing is asked or fetched.
    const again = await mcpx(['call', 'notes.whoami', '--json'], '', { MCPX_DAEMON: 'inline' });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).structuredContent.sha256).toBe(JSON.parse(result.stdout).structuredContent.sha256);
    expect((await stats()).token.client_credentials).toBe(1);

    for (const output of [call, answer, result, again]) expect(output.stdout + output.stderr).not.toContain(clientSecret);
    expect(filesHolding(configDir, clientSecret)).toEqual([]);
    const secretsFile = join(stateDir, 'secrets.json');
    expect(filesHolding(home, clientSecret)).toEqual([secretsFile]);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
  });

  it('refuses a config that writes the secret down, saying where it goes instead', async () => {
    const dir = join(home, 'bad');
    mkdirSync(dir);
    const oauth = { grant: 'client_credentials', clientId: 'svc-reporting', clientSecret: 'written-down' };
    writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: { notes: { url: `${origin}/mcp`, oauth } } }));
    const run = await mcpx(['call', 'notes.whoami'], '', { MCPX_CONFIG: join(dir, 'mcpx.json') });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('oauth.clientSecret');
    expect(run.stderr).toContain('never written in the config file');
    expect(run.stderr).not.toContain('written-down');
  });
});
