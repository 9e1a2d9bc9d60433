/**
 * A secret header asked for at first use, over Streamable HTTP, on the built CLI, each step its own process: the
 * server wants `X-Api-Key`, the config says `{"ask": "Notes API key", "secret": true}`. The first `mcpx call` exits
 * 75 with mcpx's question; another process answers it; the call completes with the header sent (the server returns
 * the SHA-256 of the key it received). The key is kept in the keychain (a real Secret Service on a private D-Bus bus)
 * and is in no output and no file under the config, state or home dirs (the daemon's log and audit log included).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeychain, type TestKeychain } from '../helpers/keychain.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'test', 'fixtures', 'servers', 'protected-http.mjs');
const apiKey = `nk_${randomBytes(12).toString('hex')}`;
const home = mkdtempSync(join(tmpdir(), 'mcpx-http-credentials-'));
const configDir = join(home, 'config');
const stateDir = join(home, 'state');

let keychain: TestKeychain;
let server: ChildProcess;
let origin: string;

function mcpx(args: string[], input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: home, MCPX_CONFIG_DIR: configDir, MCPX_STATE_DIR: stateDir, ...keychain.env };
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

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

beforeAll(async () => {
  keychain = await startKeychain();
  server = spawn(process.execPath, [fixture, '--api-key'], { env: { ...process.env, FIXTURE_API_KEY: apiKey } });
  const url = await new Promise<string>((done) => createInterface({ input: server.stdout! }).once('line', done));
  origin = new URL(url).origin;
  mkdirSync(configDir);
  writeFileSync(
    join(configDir, 'mcpx.json'),
    JSON.stringify({ mcpServers: { notes: { url, headers: { 'X-Api-Key': { ask: 'Notes API key', secret: true } } } } }),
  );
});

afterAll(async () => {
  await mcpx(['daemon', 'stop']);
  server?.kill();
  await keychain?.stop();
});

describe('a secret HTTP header asked for at first use', () => {
  it('is asked (exit 75), answered from another process, sent as the header, and kept out of every file', async () => {
    const call = await mcpx(['call', 'notes.whoami']);
    expect(call.code, call.stderr).toBe(75);
    expect(call.stdout).toContain('Notes API key');
    expect(call.stdout).toContain('the HTTP header X-Api-Key');
    const elicit = /mcpx elicit answer (elc-[0-9a-f]{16})/.exec(call.stdout)![1]!;
    const task = /mcpx task result (tsk-[0-9a-f]{16})/.exec(call.stdout)![1]!;

    const answer = await mcpx(['elicit', 'answer', elicit, '-'], JSON.stringify({ value: apiKey }));
    expect(answer.code, answer.stderr).toBe(0);
    const result = await mcpx(['task', 'result', task, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).structuredContent.sha256).toBe(sha256(apiKey));

    // A fresh daemon sends the header from the keychain, unasked.
    expect((await mcpx(['daemon', 'stop'])).code).toBe(0);
    const again = await mcpx(['call', 'notes.whoami', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).structuredContent.sha256).toBe(sha256(apiKey));
    const log = await mcpx(['log', '--chain', elicit, '--json']);
    expect(log.stdout).toContain('elicit.answered');

    // mcpx asked before connecting: the server never saw a request without the key.
    const stats = (await (await fetch(`${origin}/stats`)).json()) as { refused: number; calls: number };
    expect(stats).toMatchObject({ refused: 0 });
    expect(stats.calls).toBeGreaterThanOrEqual(2);

    for (const output of [call, answer, result, again, log]) expect(output.stdout + output.stderr).not.toContain(apiKey);
    expect(filesHolding(configDir, apiKey)).toEqual([]);
    expect(filesHolding(stateDir, apiKey)).toEqual([]);
    expect(filesHolding(home, apiKey)).toEqual([]);
  });
});
