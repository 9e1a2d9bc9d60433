/**
 * A sign-in answered later than a server may stay silent: the person takes over a minute, longer than the SDK's
 * default 60 s for the connect's first request, inside which the sign-in waits. On the built CLI: a headless
 * `mcpx call` exits 75 with the sign-in URL, the browser comes back (from this process) 61 s later, and the call
 * completes. Before, the connect gave up at 60 s ("Version negotiation probe timed out") and the question was
 * abandoned while its TTL still ran.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'test', 'fixtures', 'servers', 'protected-http.mjs');

let server: ChildProcess;
let mcpUrl: string;
const home = mkdtempSync(join(tmpdir(), 'mcpx-oauth-late-'));
const work = join(home, 'work');
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  MCPX_CONFIG_DIR: join(home, 'config'),
  MCPX_STATE_DIR: join(home, 'state'),
  MCPX_SECRET_STORE: 'file',
};

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(process.execPath, [cli, ...args], { cwd: work, env, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run test:e2e builds, or npx tsup)`);
  server = spawn(process.execPath, [fixture, '--oauth'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await createInterface({ input: server.stdout! })[Symbol.asyncIterator]().next();
  mcpUrl = first.value as string;
  mkdirSync(env.MCPX_CONFIG_DIR);
  mkdirSync(work);
  writeFileSync(join(env.MCPX_CONFIG_DIR, 'mcpx.json'), JSON.stringify({ mcpServers: { notes: { url: mcpUrl } } }));
});

afterAll(async () => {
  await run(['daemon', 'stop']);
  server?.kill();
});

describe('a sign-in answered after a minute', () => {
  it('still completes the call: no request timer runs while the person signs in', async () => {
    const call = await run(['call', 'notes.whoami', '--json']);
    expect(call.code, call.stderr).toBe(75);
    const { inputRequired } = JSON.parse(call.stdout) as {
      inputRequired: { task: string; questions: Array<{ id: string; url: string }> };
    };
    const [question] = inputRequired.questions;

    // Longer than the SDK's 60 s default for a request, well inside the question's 120 s TTL.
    await sleep(61_000);
    const listed = JSON.parse((await run(['elicit', 'list', '--json'])).stdout) as { elicitations: Array<{ id: string }> };
    expect(listed.elicitations.map((q) => q.id)).toContain(question!.id);
    const approved = await fetch(question!.url, { redirect: 'manual' });
    expect((await fetch(new URL(approved.headers.get('location')!))).status).toBe(200);
    const result = await run(['task', 'result', inputRequired.task, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).structuredContent.sha256).toMatch(/^[0-9a-f]{64}$/);
  }, 120_000);
});
