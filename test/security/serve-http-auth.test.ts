/**
 * Issue #33 item 6: `mcpx serve --http` is not open to every local user. The built CLI on loopback, in front of the
 * fixture servers, refuses a caller without its bearer token or with a wrong one, accepts the token it printed
 * (kept 0600 in the state dir), refuses --no-auth off loopback, and never lets one caller act in a session another
 * caller's token opened by naming it in X-Mcpx-Session.
 */
import { spawn } from 'node:child_process';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';
import {
  CLI,
  httpClient,
  modernPost,
  serveSetup,
  startHttpServe,
  textOf,
  type HttpServeProcess,
  type ServeSetup,
} from '../helpers/serve.js';

let setup: ServeSetup;
let serve: HttpServeProcess;
beforeAll(async () => {
  setup = serveSetup({ fx: { ...stdioFixture('dual-era'), era: 'modern' }, legacy: stdioFixture('legacy-v1') });
  // Loopback, no token given: what a user gets by default.
  serve = await startHttpServe(setup, ['--host', '127.0.0.1']);
});
afterAll(() => serve?.close());

/** The token serve printed on stderr at start (the line may come just after the URL on stdout). */
async function printedToken(process: HttpServeProcess): Promise<string> {
  for (let i = 0; i < 100 && !/Bearer [0-9a-f]{64}/.test(process.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
  const token = /Authorization: Bearer ([0-9a-f]{64})/.exec(process.stderr())?.[1];
  if (!token) throw new Error(`serve printed no token: ${process.stderr()}`);
  return token;
}

/** A v2 SDK client (modern era) connecting with these headers; the error it fails with, if it does. */
async function v2Connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'sec', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  await client.listTools();
  return client;
}

const statusOf = async (headers: Record<string, string>): Promise<number> =>
  (await modernPost(serve.url, 'tools/list', {}, { headers })).status;

describe('mcpx serve --http on loopback requires a bearer token', () => {
  it('refuses a v2 SDK client without the token, and one with a wrong token (401)', async () => {
    await expect(v2Connect(serve.url, {})).rejects.toThrow(/401|Unauthorized/);
    await expect(v2Connect(serve.url, { authorization: `Bearer ${'0'.repeat(64)}` })).rejects.toThrow(/401|Unauthorized/);
    expect(await statusOf({})).toBe(401);
    expect(await statusOf({ authorization: `Bearer ${'0'.repeat(64)}` })).toBe(401);
    expect(await statusOf({ authorization: 'Bearer ' })).toBe(401);
    // Nothing ran: no upstream tool was reachable without the token.
    const call = await modernPost(serve.url, 'tools/call', { name: 'fx__no_ask', arguments: { text: 'x' } });
    expect(call.status).toBe(401);
    expect(call.body.error?.message).toMatch(/Authorization: Bearer/);
  });

  it('accepts the token it printed, which it keeps in a 0600 file in the state dir', async () => {
    const token = await printedToken(serve);
    const file = join(setup.env.MCPX_STATE_DIR!, 'serve-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const client = await v2Connect(serve.url, { authorization: `Bearer ${token}` });
    try {
      const done = await client.callTool({ name: 'fx__no_ask', arguments: { text: 'with the token' } });
      expect(textOf(done as Record<string, unknown>)).toContain('with the token');
    } finally {
      await client.close();
    }
    // A legacy (v1 SDK) client with the token works too.
    const legacy = await httpClient(serve.url, { sdk: 'v1', headers: { authorization: `Bearer ${token}` } });
    try {
      expect((await legacy.listTools()).length).toBeGreaterThan(3);
    } finally {
      await legacy.close();
    }
  });

  it('refuses --no-auth on an address other than loopback, before serving anything', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--config', setup.configPath, '--http', '--host', '0.0.0.0', '--no-auth'],
      {
        cwd: setup.dir,
        env: setup.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((done) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.once('exit', (exit) => (clearTimeout(timer), done(exit)));
    });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/--no-auth is allowed on loopback only/);
  });
});

describe('a token file other users could read', () => {
  it('is refused, before serving anything: its tokens may be known', async () => {
    const tokenFile = join(setup.dir, 'open-tokens');
    writeFileSync(tokenFile, `${'c'.repeat(32)}\n`, { mode: 0o644 });
    chmodSync(tokenFile, 0o644);
    const run = await setup.cli(['serve', '--config', setup.configPath, '--http', '--token-file', tokenFile]);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/can be read by other users \(mode 0644\)/);
  });
});

describe('a session belongs to the token that opened it, not to X-Mcpx-Session', () => {
  const alice = 'a'.repeat(20) + '-alice-token';
  const bob = 'b'.repeat(20) + '-bob-token';
  let shared: HttpServeProcess;
  beforeAll(async () => {
    const tokenFile = join(setup.dir, 'tokens');
    writeFileSync(tokenFile, `${alice}\n${bob}\n`, { mode: 0o600 });
    shared = await startHttpServe(setup, ['--token-file', tokenFile]);
  });
  afterAll(() => shared?.close());

  const as = (token: string, session?: string): Record<string, string> => ({
    authorization: `Bearer ${token}`,
    ...(session ? { 'x-mcpx-session': session } : {}),
  });

  it("refuses another token's caller naming the session, and leaves the question pending for its owner", async () => {
    const mine = await httpClient(shared.url, { sdk: 'v2', era: 'modern', headers: as(alice, 'alice-work') });
    try {
      const asked = await mine.callTool('fx__ask_confirm', {});
      const id = /elc-[0-9a-f]{16}/.exec(textOf(asked))![0];

      // Bob's own valid token, Alice's session named: list and answer are refused, with a clear message.
      const list = await modernPost(
        shared.url,
        'tools/call',
        { name: 'mcpx_elicit_list', arguments: {} },
        { headers: as(bob, 'alice-work') },
      );
      expect(list.status).toBe(403);
      expect(list.body.error?.message).toMatch(/session "alice-work" belongs to another caller/);
      const answer = await modernPost(
        shared.url,
        'tools/call',
        { name: 'mcpx_elicit_answer', arguments: { id, action: 'accept', content: { confirm: true } } },
        { headers: as(bob, 'alice-work') },
      );
      expect(answer.status).toBe(403);
      // Through the v2 SDK client, too.
      await expect(
        httpClient(shared.url, { sdk: 'v2', era: 'modern', headers: as(bob, 'alice-work') }).then((c) => c.listTools()),
      ).rejects.toThrow(/403|belongs to another caller/);
      // A legacy MCP session naming it cannot be opened either.
      await expect(httpClient(shared.url, { sdk: 'v1', headers: as(bob, 'alice-work') })).rejects.toThrow();

      // In a session of his own (none named), Bob sees nothing of Alice's and cannot answer her question.
      const bobs = await httpClient(shared.url, { sdk: 'v2', era: 'modern', headers: as(bob) });
      try {
        expect(textOf(await bobs.callTool('mcpx_elicit_list', {}))).not.toContain(id);
        const refused = await bobs.callTool('mcpx_elicit_answer', { id, action: 'accept', content: { confirm: true } });
        expect(refused.isError).toBe(true);
      } finally {
        await bobs.close();
      }

      // Alice's question is still hers and still pending.
      expect(textOf(await mine.callTool('mcpx_elicit_list', {}))).toContain(id);
      const stored = await setup.cli(['elicit', 'list', '--all', '--json']);
      expect(stored.stdout).toContain(id);
      expect(stored.stdout).toContain('alice-work');
    } finally {
      await mine.close();
    }
  });

  it("refuses a legacy MCP session's id sent with another token", async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const opened = await fetch(shared.url, { method: 'POST', headers: { ...headers, ...as(alice) }, body });
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const foreign = await fetch(shared.url, {
      method: 'POST',
      headers: { ...headers, ...as(bob), 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      body: list,
    });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toMatch(/opened with another bearer token/);
  });
});
