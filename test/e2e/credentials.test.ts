/**
 * Credentials at first use, on the built CLI, each step its own process: a server whose config says
 * `"env": {"FIXTURE_TOKEN": {"ask": "GitHub token", "secret": true}}` is called; mcpx asks for the token as its own
 * question (exit 75), another process answers it, the daemon keeps it in the keychain (a real Secret Service on a
 * private D-Bus bus), starts the server with it and the call completes. The value is then in no file under the
 * config and state directories (nor anywhere under HOME), not in the audit log, and a fresh daemon uses it unasked.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeychain, type TestKeychain } from '../helpers/keychain.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const server = join(root, 'test', 'fixtures', 'servers', 'needs-token.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface Setup {
  home: string;
  configDir: string;
  stateDir: string;
  run(args: string[], input?: string): Promise<Run>;
}

function setup(env: Record<string, string>, name = 'tok'): Setup {
  const home = mkdtempSync(join(tmpdir(), 'mcpx-credentials-'));
  const configDir = join(home, 'config');
  const stateDir = join(home, 'state');
  const cwd = join(home, 'work');
  mkdirSync(configDir);
  mkdirSync(cwd);
  writeFileSync(
    join(configDir, 'mcpx.json'),
    JSON.stringify(
      {
        mcpServers: {
          [name]: { command: process.execPath, args: [server], env: { FIXTURE_TOKEN: { ask: 'GitHub token', secret: true } } },
        },
      },
      null,
      2,
    ),
  );
  const fullEnv = { PATH: process.env.PATH ?? '', HOME: home, MCPX_CONFIG_DIR: configDir, MCPX_STATE_DIR: stateDir, ...env };
  const run = (args: string[], input?: string): Promise<Run> =>
    new Promise((done) => {
      const child = execFile(
        process.execPath,
        [cli, ...args],
        { cwd, env: fullEnv, timeout: 60_000 },
        (error, stdout, stderr) => {
          done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
        },
      );
      child.stdin?.end(input ?? '');
    });
  return { home, configDir, stateDir, run };
}

/** Paths of the files under dir whose bytes contain text. */
function filesHolding(dir: string, text: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => readFileSync(path).includes(text));
}

function idsIn(text: string): { elicit: string; task: string } {
  const elicit = /mcpx elicit answer (elc-[0-9a-f]{16})/.exec(text)?.[1];
  const task = /mcpx task result (tsk-[0-9a-f]{16})/.exec(text)?.[1];
  if (!elicit || !task) throw new Error(`no ids in:\n${text}`);
  return { elicit, task };
}

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');
const setups: Setup[] = [];
let keychain: TestKeychain;

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run test:e2e builds, or npx tsup)`);
  keychain = await startKeychain();
});
afterAll(async () => {
  await Promise.all(setups.map((s) => s.run(['daemon', 'stop'])));
  await keychain?.stop();
});

describe('a secret credential asked for at first use', () => {
  it('is asked, answered from another process, kept in the keychain, and in no file afterwards', async () => {
    const s = setup(keychain.env);
    setups.push(s);
    const token = `ghp_${randomBytes(12).toString('hex')}`;

    const call = await s.run(['call', 'tok.whoami']);
    expect(call.code, call.stderr).toBe(75);
    expect(call.stdout).toContain('GitHub token');
    expect(call.stdout).toContain('FIXTURE_TOKEN');
    const { elicit, task } = idsIn(call.stdout);

    const answer = await s.run(['elicit', 'answer', elicit, '-', '--json'], JSON.stringify({ value: token }));
    expect(answer.code, answer.stderr).toBe(0);
    expect(JSON.parse(answer.stdout).answer).toMatchObject({
      action: 'accept',
      by: 'cli',
      content: { value: '(kept in the secret store)' },
    });

    const result = await s.run(['task', 'result', task, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).structuredContent.sha256).toBe(sha256(token));

    // Audited like any other question: opened and answered by the CLI; the record holds no value.
    const log = await s.run(['log', '--chain', elicit, '--json']);
    const events = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; by?: string; data?: Record<string, unknown> });
    expect(events.map((e) => e.kind)).toEqual(expect.arrayContaining(['elicit.open', 'elicit.answered']));
    const listed = await s.run(['elicit', 'list', '--state', 'all', '--json']);
    expect(listed.stdout).toContain(elicit);

    // A fresh daemon starts the server from the keychain, without a question.
    expect((await s.run(['daemon', 'stop'])).code).toBe(0);
    const again = await s.run(['call', 'tok.whoami', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).structuredContent.sha256).toBe(sha256(token));
    expect((await s.run(['daemon', 'stop'])).code).toBe(0);

    for (const output of [call, answer, result, log, listed, again]) expect(output.stdout + output.stderr).not.toContain(token);
    expect(filesHolding(s.configDir, token)).toEqual([]);
    expect(filesHolding(s.stateDir, token)).toEqual([]);
    expect(filesHolding(s.home, token)).toEqual([]);
    expect(filesHolding(keychain.dataDir, token)).toEqual([]); // gnome-keyring keeps it encrypted
  });

  it('fails the call with SECRET_MISSING when the question is declined, and starts nothing', async () => {
    const s = setup(keychain.env, 'declined');
    setups.push(s);
    const call = await s.run(['call', 'declined.whoami']);
    expect(call.code, call.stderr).toBe(75);
    const { elicit, task } = idsIn(call.stdout);
    expect((await s.run(['elicit', 'decline', elicit])).code).toBe(0);
    const result = await s.run(['task', 'result', task]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/needs GitHub token \(env\.FIXTURE_TOKEN\); the question was answered decline/);
  });

  it('where no keychain works, keeps it in the 0600 secrets file of the state dir and nowhere else', async () => {
    const noBus = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(tmpdir(), `no-bus-${randomBytes(4).toString('hex')}`)}` };
    const s = setup(noBus);
    setups.push(s);
    const token = `ghp_${randomBytes(12).toString('hex')}`;
    const call = await s.run(['call', 'tok.whoami']);
    expect(call.code, call.stderr).toBe(75);
    const { elicit, task } = idsIn(call.stdout);
    expect((await s.run(['elicit', 'answer', elicit, '-'], JSON.stringify({ value: token }))).code).toBe(0);
    const result = await s.run(['task', 'result', task, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).structuredContent.sha256).toBe(sha256(token));
    const secretsFile = join(s.stateDir, 'secrets.json');
    expect(filesHolding(s.home, token)).toEqual([secretsFile]);
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    expect(statSync(s.stateDir).mode & 0o777).toBe(0o700);
  });
});
