/**
 * The modern HTTP fast path (fast-call.ts) answers a plain `tools/call` without the SDK's per-request server. Two
 * `mcpx serve --http` listeners on one core, one with the fast path and one without, get the same requests: every
 * answer is the same, status and body (ids a call mints itself set aside), and only the SDK's listener builds a
 * server for them. Upstreams: the dual-era (modern) and legacy-v1 fixtures over stdio, and a hand-written modern
 * server over HTTP whose results carry what the SDK's own server would change (unknown fields, no content, another
 * server's identity).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import { Server } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createServeCore,
  serveOverHttp,
  RESERVED_NAMES,
  type HttpServe,
  type ServeCore,
} from '../../src/surfaces/mcp-server/index.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { serveSetup } from '../helpers/serve.js';

const upstreamInfo = { 'io.modelcontextprotocol/serverInfo': { name: 'raw', version: '1.0.0' } };
const RAW_RESULTS: Record<string, Record<string, unknown>> = {
  plain: { content: [{ type: 'text', text: 'plain done' }] },
  extra_fields: {
    content: [{ type: 'text', text: 'extra', newField: { kept: true } }],
    topLevel: 1,
    _meta: { 'example.com/trace': 'abc' },
  },
  no_content: { structuredContent: { a: 1 } },
  tool_error: { content: [{ type: 'text', text: 'it broke' }], isError: true },
};

/** A modern MCP server over HTTP, written by hand (nothing stamps or strips its results for it). */
function rawModernUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server: HttpServer = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(text) as { id?: unknown; method: string; params?: { name?: string } };
      const reply = (result: Record<string, unknown>): void =>
        void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === 'server/discover')
        return reply({
          resultType: 'complete',
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {}, prompts: {}, resources: {} },
          ttlMs: 0,
          cacheScope: 'private',
          _meta: upstreamInfo,
        });
      if (message.method === 'tools/list')
        return reply({
          resultType: 'complete',
          tools: Object.keys(RAW_RESULTS).map((name) => ({ name, inputSchema: { type: 'object' } })),
          ttlMs: 0,
          cacheScope: 'private',
          _meta: upstreamInfo,
        });
      const empty = { 'prompts/list': 'prompts', 'resources/list': 'resources', 'resources/templates/list': 'resourceTemplates' };
      const listed = empty[message.method as keyof typeof empty];
      if (listed) return reply({ resultType: 'complete', [listed]: [], ttlMs: 0, cacheScope: 'private', _meta: upstreamInfo });
      const result = RAW_RESULTS[message.params?.name ?? ''];
      if (message.method === 'tools/call' && result) return reply({ resultType: 'complete', ...result });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${address.port}/mcp`,
        close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
      });
    }),
  );
}

let core: ServeCore;
let fast: HttpServe;
let sdk: HttpServe;
let raw: { url: string; close(): Promise<void> };

beforeAll(async () => {
  raw = await rawModernUpstream();
  const { dir, env, configPath } = serveSetup({
    fx: { ...stdioFixture('dual-era'), era: 'modern' },
    legacy: stdioFixture('legacy-v1'),
    raw: { url: raw.url, era: 'modern' },
  });
  core = await createServeCore({ env, cwd: dir, configPath, version: 'test', reserved: RESERVED_NAMES });
  fast = await serveOverHttp(core, { env, version: 'test', host: '127.0.0.1', port: 0, auth: { none: true } });
  sdk = await serveOverHttp(core, {
    env: { ...env, MCPX_FAST_PATHS: '0' },
    version: 'test',
    host: '127.0.0.1',
    port: 0,
    auth: { none: true },
  });
});
afterAll(async () => {
  await fast?.close();
  await sdk?.close();
  await core?.close();
  await raw?.close();
});

const ELICITING = { elicitation: { form: {}, url: {} } };
let nextId = 1;

interface Answered {
  status: number;
  type: string | null;
  body: Record<string, unknown>;
}

/** One raw tools/call, as the v2 SDK's client sends it (its headers, its `_meta` envelope). */
async function call(
  url: string,
  name: string,
  args: Record<string, unknown>,
  { capabilities = ELICITING, extra = {}, headers = {} }: { capabilities?: object; extra?: object; headers?: object } = {},
): Promise<Answered> {
  const params = {
    name,
    arguments: args,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'parity', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    },
    ...extra,
  };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params }),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** What is the call's own (its JSON-RPC id, the state and ids it minted, its deadlines) set aside. */
function comparable({ status, type, body }: Answered): unknown {
  const text = JSON.stringify({ ...body, id: 'id' })
    .replace(/"requestState":"[^"]+"/g, '"requestState":"<state>"')
    .replace(/\b(tsk|elc)-[0-9a-f]{16}\b/g, '$1-<id>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
  return { status, type, body: JSON.parse(text) as unknown };
}

/** The same call (and, given `then`, the same follow-up) through both listeners: the answers must be equal. */
async function same(
  name: string,
  args: Record<string, unknown>,
  options: Parameters<typeof call>[3] = {},
  then?: (first: Answered, url: string) => Promise<Answered>,
): Promise<Answered> {
  const viaFast = await call(fast.url, name, args, options);
  const viaSdk = await call(sdk.url, name, args, options);
  expect(comparable(viaFast)).toEqual(comparable(viaSdk));
  if (!then) return viaFast;
  const nextFast = await then(viaFast, fast.url);
  const nextSdk = await then(viaSdk, sdk.url);
  expect(comparable(nextFast)).toEqual(comparable(nextSdk));
  return nextFast;
}

const resultOf = (answered: Answered) => answered.body.result as Record<string, unknown>;
const stateOf = (answered: Answered) => resultOf(answered).requestState as string;

/** How many SDK servers the listener built while `run` ran. */
async function serversBuilt(run: () => Promise<unknown>): Promise<number> {
  const connect = vi.spyOn(Server.prototype, 'connect');
  try {
    await run();
    return connect.mock.calls.length;
  } finally {
    connect.mockRestore();
  }
}

describe('the modern HTTP fast path', () => {
  it('answers plain calls as the SDK path does, without building a server per request', async () => {
    await same('fx__no_ask', { text: 'x' });
    for (const name of Object.keys(RAW_RESULTS)) await same(`raw__${name}`, {});
    const plain = await same('raw__extra_fields', {});
    // The stamps the SDK's server adds, and the field the spec's content schema does not know, dropped by both.
    expect(resultOf(plain)).toEqual({
      content: [{ type: 'text', text: 'extra' }],
      topLevel: 1,
      resultType: 'complete',
      _meta: { 'example.com/trace': 'abc', 'io.modelcontextprotocol/serverInfo': { name: 'mcpx', version: 'test' } },
    });
    expect(await serversBuilt(() => call(fast.url, 'fx__no_ask', { text: 'y' }))).toBe(0);
    expect(await serversBuilt(() => call(sdk.url, 'fx__no_ask', { text: 'y' }))).toBe(1);
  });

  it('asks, takes each answer (accept, decline, cancel) on the retry, and asks again for one that does not fit', async () => {
    /** Answers every question of the first answer's round (a legacy upstream's are keyed by question id) alike. */
    const retry =
      (response: Record<string, unknown>, tool = 'fx__ask_form') =>
      (first: Answered, url: string) => {
        const keys = Object.keys(resultOf(first).inputRequests as Record<string, unknown>);
        const inputResponses = Object.fromEntries(keys.map((key) => [key, response]));
        return call(url, tool, { title: 't' }, { extra: { requestState: stateOf(first), inputResponses } });
      };
    for (const response of [
      { action: 'accept', content: { repo: 'me/repo', private: true, priority: 'high' } },
      { action: 'decline' },
      { action: 'cancel' },
    ]) {
      // A modern upstream's round, and a legacy upstream's question held open by the broker for the retry.
      for (const tool of ['fx__ask_form', 'legacy__ask_form']) {
        const done = await same(tool, { title: 't' }, {}, retry(response, tool));
        expect(JSON.stringify(resultOf(done))).toContain(`\\"action\\":\\"${response.action}\\"`);
      }
    }
    // A repo under three characters does not fit the schema: the same question comes back, still pending.
    const again = await same('fx__ask_form', { title: 't' }, {}, retry({ action: 'accept', content: { repo: 'x' } }));
    expect(resultOf(again).resultType).toBe('input_required');
    expect(await serversBuilt(() => call(fast.url, 'fx__ask_form', { title: 'u' }))).toBe(0);
  });

  it('gives a client that cannot be asked the same input-required text', async () => {
    const described = await same('fx__ask_confirm', {}, { capabilities: {} });
    expect(JSON.stringify(resultOf(described).content)).toContain('mcpx_elicit_answer');
  });

  it('refuses what the SDK path refuses, with the same error', async () => {
    const first = await call(fast.url, 'fx__ask_form', { title: 't' });
    // A state minted for other arguments (caught on the fast path), and one altered (left to the SDK's path).
    const mismatch = await same(
      'fx__ask_form',
      { title: 'other' },
      { extra: { requestState: stateOf(first), inputResponses: {} } },
    );
    expect((mismatch.body.error as { data?: { reason?: string } }).data?.reason).toBe('request_state_mismatch');
    const altered = await same(
      'fx__ask_form',
      { title: 't' },
      { extra: { requestState: `${stateOf(first)}x`, inputResponses: {} } },
    );
    expect((altered.body.error as { code?: number }).code).toBe(-32602);
    const unknown = await same('fx__nope', {});
    expect((unknown.body.error as { message?: string }).message).toContain('Unknown tool: fx__nope');
    const mismatchedHeader = await same('fx__no_ask', {}, { headers: { 'mcp-name': 'fx__other' } });
    expect(mismatchedHeader.status).toBe(400);
    // An envelope the SDK's classifier refuses, after a valid one was seen (the fast path keeps valid ones only).
    await same('fx__no_ask', {});
    const badEnvelope = await same('fx__no_ask', {}, { capabilities: 'none' as never });
    expect(badEnvelope.status).toBe(400);
    expect((badEnvelope.body.error as { code?: number }).code).toBe(-32602);
  });
});
