/**
 * One refresh for everyone: an OAuth-protected Streamable HTTP server (its own authorization server counts token
 * requests, and its refresh tokens rotate: each works once), one real sign-in, then an expired access token under
 * 8 concurrent calls from 8 processes on the built package, and from 8 mcpx instances in one process. Exactly one
 * refresh request reaches the token endpoint each time; every call succeeds with the new token.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuth, refreshLockPath, serverCredentials } from '../../src/auth/index.js';
import { createMcpx } from '../../src/mcpx.js';
import { openSecretStore } from '../../src/secrets/index.js';
import type { SecretStore } from '../../src/secrets/index.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixture = join(repo, 'test', 'fixtures', 'servers', 'protected-http.mjs');
const caller = join(repo, 'test', 'helpers', 'oauth-call.mjs');
const cli = join(repo, 'dist', 'cli.js');

interface Stats {
  token: { authorization_code: number; refresh_token: number };
  register: number;
}

let server: ChildProcessWithoutNullStreams;
let url: string;
let origin: string;
let state: string;
let store: SecretStore;

const stats = async (): Promise<Stats> => (await (await fetch(`${origin}/stats`)).json()) as Stats;
const noSignIn = async (): Promise<void> => {
  throw new Error('a sign-in was asked for');
};

/** The access token ends at the server, and the stored copy says it has (saved two hours ago, valid one). */
async function expire(): Promise<void> {
  await fetch(`${origin}/expire`, { method: 'POST' });
  const credentials = serverCredentials(store, 'notes');
  const issuer = (await credentials.currentIssuer())!;
  const tokens = (await credentials.tokens(issuer))!;
  await serverCredentials(store, 'notes', () => Date.now() - 2 * 3600_000).saveTokens(issuer, tokens);
}

const firstLine = (child: ChildProcessWithoutNullStreams): Promise<string> =>
  new Promise((done, fail) => {
    createInterface({ input: child.stdout }).once('line', done);
    child.once('exit', (code) => fail(new Error(`exited ${code} before writing a line`)));
  });

beforeAll(async () => {
  server = spawn(process.execPath, [fixture, '--oauth'], { env: { ...process.env, FIXTURE_TOKEN_DELAY_MS: '200' } });
  url = await firstLine(server);
  origin = new URL(url).origin;
  state = join(mkdtempSync(join(tmpdir(), 'mcpx-oauth-refresh-')), 'state');
  store = await openSecretStore({ stateDir: state, prefer: 'file' });

  // The one sign-in: the "browser" follows the authorization server's redirect back to mcpx's loopback.
  const auth = createAuth({
    store,
    lockDir: join(state, 'locks'),
    present: async ({ url: signIn }) => void (await (await fetch(signIn)).text()),
  });
  const mcpx = await createMcpx({ config: { mcpServers: { notes: { url } } }, auth, env: { MCPX_STATE_DIR: state } });
  try {
    expect((await mcpx.callTool('notes', 'whoami', {})).status).toBe('complete');
  } finally {
    await mcpx.close();
    await auth.close();
  }
  expect((await stats()).token).toEqual({ authorization_code: 1, refresh_token: 0, other: 0 });
});

/** The built CLI on this test's state dir, its config naming the server, tokens in the file store. */
function mcpx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = dirname(state);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    MCPX_CONFIG_DIR: join(home, 'config'),
    MCPX_STATE_DIR: state,
    MCPX_SECRET_STORE: 'file',
  };
  mkdirSync(env.MCPX_CONFIG_DIR, { recursive: true });
  writeFileSync(join(env.MCPX_CONFIG_DIR, 'mcpx.json'), JSON.stringify({ mcpServers: { notes: { url } } }));
  return new Promise((done) => {
    execFile(process.execPath, [cli, ...args], { cwd: home, env, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

afterAll(async () => {
  if (state) await mcpx(['daemon', 'stop']);
  server?.kill();
});

describe('refreshing an expired OAuth access token', () => {
  it('sends one refresh request for 8 concurrent calls from 8 processes; each call uses the new token', async () => {
    await expire();
    const children = Array.from({ length: 8 }, () =>
      spawn(process.execPath, [caller, url], { env: { ...process.env, MCPX_STATE_DIR: state } }),
    );
    const ready: Promise<void>[] = [];
    const finished = children.map((child) => {
      const lines: string[] = [];
      let stderr = '';
      ready.push(
        new Promise((up) =>
          createInterface({ input: child.stdout }).on('line', (line) => (line === 'ready' ? up() : lines.push(line))),
        ),
      );
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      return new Promise<{ code: number | null; lines: string[]; stderr: string }>((done) =>
        child.on('close', (code) => done({ code, lines, stderr })),
      );
    });
    // All eight are up before any of them calls, so their calls overlap.
    await Promise.all(ready);
    for (const child of children) child.stdin.end('go\n');
    const results = await Promise.all(finished);

    for (const { code, stderr } of results) expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const outcomes = results.map(({ lines }) => JSON.parse(lines.at(-1)!) as { status: string; result: { sha256: string } });
    expect(outcomes.map((o) => o.status)).toEqual(Array(8).fill('complete'));
    expect(new Set(outcomes.map((o) => o.result.sha256)).size).toBe(1);
    expect((await stats()).token).toMatchObject({ authorization_code: 1, refresh_token: 1 });
  });

  it('sends one refresh request for 8 concurrent calls from 8 mcpx instances in one process', async () => {
    await expire();
    const auths = Array.from({ length: 8 }, () => createAuth({ store, lockDir: join(state, 'locks'), present: noSignIn }));
    const instances = await Promise.all(
      auths.map((auth) => createMcpx({ config: { mcpServers: { notes: { url } } }, auth, env: { MCPX_STATE_DIR: state } })),
    );
    try {
      const outcomes = await Promise.all(instances.map((mcpx) => mcpx.callTool('notes', 'whoami', {})));
      expect(outcomes.map((o) => o.status)).toEqual(Array(8).fill('complete'));
    } finally {
      await Promise.all(instances.map((mcpx) => mcpx.close()));
      await Promise.all(auths.map((auth) => auth.close()));
    }
    expect((await stats()).token).toMatchObject({ authorization_code: 1, refresh_token: 2 });
  });

  it('sends one refresh request for 8 concurrent `mcpx call`s through the daemon, which refreshes for them', async () => {
    const started = await mcpx(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    await expire();
    const before = (await stats()).token.refresh_token;
    const calls = await Promise.all(Array.from({ length: 8 }, () => mcpx(['call', 'notes.whoami', '--json'])));
    for (const call of calls) expect({ code: call.code, stderr: call.stderr }, call.stdout).toEqual({ code: 0, stderr: '' });
    expect(new Set(calls.map((call) => JSON.parse(call.stdout).structuredContent.sha256)).size).toBe(1);
    expect((await stats()).token).toMatchObject({ authorization_code: 1, refresh_token: before + 1 });
  });

  it('breaks the lock of a holder that died, and refreshes once', async () => {
    await expire();
    const dead = spawn(process.execPath, ['-e', '']);
    const pid = dead.pid!;
    await new Promise((done) => dead.once('exit', done));
    const lock = refreshLockPath(join(state, 'locks'), 'notes');
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, JSON.stringify({ pid, nonce: 'crashed' }));

    const auth = createAuth({ store, lockDir: join(state, 'locks'), present: noSignIn });
    const mcpx = await createMcpx({ config: { mcpServers: { notes: { url } } }, auth, env: { MCPX_STATE_DIR: state } });
    try {
      expect((await mcpx.callTool('notes', 'whoami', {})).status).toBe('complete');
    } finally {
      await mcpx.close();
      await auth.close();
    }
    expect((await stats()).token).toMatchObject({ authorization_code: 1, refresh_token: 4 });
  });
});
