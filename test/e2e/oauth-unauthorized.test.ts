/**
 * A 401 met by several processes at once costs one token request: the answer to it (the SDK's refresh, a machine
 * grant's token request) runs under the server's cross-process refresh lock, and whoever waited finds the new token
 * in the secret store and sends with it. Two cases the expiry-ahead refresh (oauth-refresh.test.ts) cannot see
 * coming: tokens issued without `expires_in` (known to have ended only by the 401), and machine grants. Each caller
 * is its own process on the built package (test/helpers/oauth-call.mjs), all starting their calls at once.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuth } from '../../src/auth/index.js';
import { createMcpx } from '../../src/mcpx.js';
import { openSecretStore } from '../../src/secrets/index.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixture = join(repo, 'test', 'fixtures', 'servers', 'protected-http.mjs');
const caller = join(repo, 'test', 'helpers', 'oauth-call.mjs');
const CALLERS = 4;

const servers: ChildProcessWithoutNullStreams[] = [];

const firstLine = (child: ChildProcessWithoutNullStreams): Promise<string> =>
  new Promise((done, fail) => {
    createInterface({ input: child.stdout }).once('line', done);
    child.once('exit', (code) => fail(new Error(`exited ${code} before writing a line`)));
  });

/** The fixture in `mode`, its tokens issued without expires_in and its token endpoint slow, so callers overlap. */
async function startServer(mode: string, env: Record<string, string> = {}): Promise<{ url: string; origin: string }> {
  const server = spawn(process.execPath, [fixture, mode], {
    env: { ...process.env, FIXTURE_NO_EXPIRES_IN: '1', FIXTURE_TOKEN_DELAY_MS: '300', ...env },
  });
  servers.push(server);
  const url = await firstLine(server);
  return { url, origin: new URL(url).origin };
}

const tokenCounts = async (origin: string): Promise<Record<string, number>> =>
  ((await (await fetch(`${origin}/stats`)).json()) as { token: Record<string, number> }).token;

/** `count` callers, each its own process on `state`, calling at the same moment; their outcomes. */
async function callTogether(
  count: number,
  url: string,
  state: string,
  oauth?: Record<string, unknown>,
): Promise<Array<{ code: number | null; stderr: string; status?: string; sha256?: string | undefined }>> {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, [caller, url, ...(oauth ? [JSON.stringify(oauth)] : [])], {
      env: { ...process.env, MCPX_STATE_DIR: state },
    }),
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
    return new Promise<{ code: number | null; stderr: string; status?: string; sha256?: string | undefined }>((done) =>
      child.on('close', (code) => {
        const last = lines.at(-1);
        const outcome = last ? (JSON.parse(last) as { status: string; result?: { sha256: string } }) : undefined;
        done({ code, stderr, ...(outcome ? { status: outcome.status, sha256: outcome.result?.sha256 } : {}) });
      }),
    );
  });
  await Promise.all(ready);
  for (const child of children) child.stdin.end('go\n');
  return Promise.all(finished);
}

afterAll(() => {
  for (const server of servers) server.kill();
});

describe('a 401 met by several processes at once', () => {
  it('refreshes a token issued without expires_in once, under the lock; every caller uses the new token', async () => {
    const { url, origin } = await startServer('--oauth');
    const state = join(mkdtempSync(join(tmpdir(), 'mcpx-oauth-401-')), 'state');
    const store = await openSecretStore({ stateDir: state, prefer: 'file' });
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

    // The server ends the token; the stored copy has no expiry to say so, so each caller learns it from a 401.
    await fetch(`${origin}/expire`, { method: 'POST' });
    const results = await callTogether(CALLERS, url, state);
    // Before: each process refreshed on its 401 (refresh_token: 4); the rotated refresh token failed the other three,
    // which were then asked to sign in ("a sign-in was asked for").
    for (const { code, stderr, status } of results)
      expect({ code, stderr, status }).toEqual({ code: 0, stderr: '', status: 'complete' });
    expect(new Set(results.map((r) => r.sha256)).size).toBe(1);
    expect(await tokenCounts(origin)).toMatchObject({ authorization_code: 1, refresh_token: 1 });
  });

  it('makes one client_credentials token request for the processes that meet the 401, and shares the token', async () => {
    const clientSecret = 'cs-unauthorized-test';
    const { url, origin } = await startServer('--client-credentials', {
      FIXTURE_CLIENT_ID: 'svc-test',
      FIXTURE_CLIENT_SECRET: clientSecret,
    });
    const home = mkdtempSync(join(tmpdir(), 'mcpx-oauth-401-machine-'));
    const state = join(home, 'state');
    const secretFile = join(home, 'client-secret');
    writeFileSync(secretFile, clientSecret, { mode: 0o600 });
    const oauth = { grant: 'client_credentials', clientId: 'svc-test', clientSecret: { file: secretFile } };

    const first = await callTogether(1, url, state, oauth);
    expect(first.map(({ code, stderr, status }) => ({ code, stderr, status }))).toEqual([
      { code: 0, stderr: '', status: 'complete' },
    ]);
    expect((await tokenCounts(origin)).client_credentials).toBe(1);

    await fetch(`${origin}/expire`, { method: 'POST' });
    const results = await callTogether(CALLERS, url, state, oauth);
    for (const { code, stderr, status } of results)
      expect({ code, stderr, status }).toEqual({ code: 0, stderr: '', status: 'complete' });
    // Before: one token request per process that met the 401 (client_credentials: 1 + 4).
    expect(new Set(results.map((r) => r.sha256)).size).toBe(1);
    expect(results[0]!.sha256).not.toBe(first[0]!.sha256);
    expect((await tokenCounts(origin)).client_credentials).toBe(2);
  });
});
