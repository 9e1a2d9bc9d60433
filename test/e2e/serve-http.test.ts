/**
 * `mcpx serve --http` (the built CLI) with real clients over Streamable HTTP: v1 (legacy, sessionful) and v2
 * (modern, stateless), forwarding questions both ways; Host and Origin checked; a bearer token off loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';
import {
  fitting,
  httpClient,
  received,
  serveSetup,
  startHttpServe,
  textOf,
  type Answer,
  type Asked,
  type HttpServeProcess,
  type ServeSetup,
} from '../helpers/serve.js';

let setup: ServeSetup;
let serve: HttpServeProcess;
// Loopback needs a token too: these clients send it, as a host's `headers` entry does.
const TOKEN = 'a-loopback-token-for-the-http-tests-0123';
const auth = { authorization: `Bearer ${TOKEN}` };
beforeAll(async () => {
  setup = serveSetup({ legacy: stdioFixture('legacy-v1'), modern: { ...stdioFixture('dual-era'), era: 'modern' } });
  serve = await startHttpServe(setup, [], { MCPX_SERVE_TOKEN: TOKEN });
});
afterAll(() => serve?.close());

const answering =
  (action: Answer['action']) =>
  (asked: Asked): Answer =>
    action === 'accept' ? { action, content: fitting(asked) } : { action };

describe('mcpx serve --http', () => {
  it('listens on loopback by default', () => {
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  for (const sdk of ['v1', 'v2'] as const) {
    const era = sdk === 'v1' ? 'legacy' : 'modern';
    for (const upstream of ['legacy', 'modern'] as const) {
      it(`forwards the ${upstream} upstream's question to a ${era} client (${sdk}); accept, decline and cancel arrive as given`, async () => {
        for (const action of ['accept', 'decline', 'cancel'] as const) {
          const client = await httpClient(serve.url, { sdk, era, answer: answering(action), headers: auth });
          try {
            const result = await client.callTool(`${upstream}__ask_form`, { title: 'h' });
            expect(client.asked[0]?.message).toBe(`${upstream} (via mcpx) asks: Where should "h" go?`);
            expect(received(result, 'details')?.action).toBe(action);
          } finally {
            await client.close();
          }
        }
      });
    }
  }

  it('gives a client without elicitation the input-required text and the tools that answer it', async () => {
    const client = await httpClient(serve.url, { sdk: 'v2', era: 'modern', headers: auth });
    try {
      const first = await client.callTool('legacy__ask_confirm', {});
      const id = /elc-[0-9a-f]{16}/.exec(textOf(first))![0];
      const done = await client.callTool('mcpx_elicit_answer', { id, action: 'accept', content: { confirm: false } });
      expect(received(done, 'confirm')).toEqual({ action: 'accept', content: { confirm: false } });
    } finally {
      await client.close();
    }
  });

  it('refuses a Host or Origin that is not loopback (DNS rebinding)', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth };
    const { request } = await import('node:http');
    const post = (extra: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(serve.url, { method: 'POST', headers: { ...headers, ...extra } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await post({ host: 'evil.example.com' })).toBe(403);
    expect(await post({ origin: 'http://evil.example.com' })).toBe(403);
    expect(await post({ origin: 'http://localhost:1234' })).toBe(200);
  });

  it('refuses a body over 4 MiB with 413, as the SDK does, and goes on serving', async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', pad: 'x'.repeat(5 << 20) } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth };
    const refused = await fetch(serve.url, { method: 'POST', headers, body: huge });
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('must not exceed 4194304 bytes');
    const client = await httpClient(serve.url, { sdk: 'v2', era: 'modern', headers: auth });
    try {
      expect(textOf(await client.callTool('modern__no_ask', { text: 'after' }))).toContain('after');
    } finally {
      await client.close();
    }
  });
});

describe('mcpx serve --http off loopback', () => {
  let open: HttpServeProcess;
  beforeAll(async () => {
    open = await startHttpServe(setup, ['--host', '0.0.0.0'], { MCPX_SERVE_TOKEN: 'a-token-long-enough-for-a-test-0123' });
  });
  afterAll(() => open?.close());

  it('requires the bearer token', async () => {
    const url = open.url.replace('0.0.0.0', '127.0.0.1');
    await expect(httpClient(url, { sdk: 'v2', era: 'modern' }).then((c) => c.listTools())).rejects.toThrow();
    const client = await httpClient(url, {
      sdk: 'v2',
      era: 'modern',
      headers: { authorization: 'Bearer a-token-long-enough-for-a-test-0123' },
    });
    try {
      expect((await client.listTools()).length).toBeGreaterThan(3);
    } finally {
      await client.close();
    }
  });

  it('makes a token and prints it when none is given', async () => {
    const other = await startHttpServe(setup, ['--host', '0.0.0.0']);
    try {
      // stderr and stdout are separate pipes: the token line may arrive just after the URL.
      for (let i = 0; i < 50 && !/Bearer/.test(other.stderr()); i++) await new Promise((r) => setTimeout(r, 100));
      expect(other.stderr()).toMatch(/Authorization: Bearer \S{20,}/);
    } finally {
      await other.close();
    }
  });
});
