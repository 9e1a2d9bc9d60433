/**
 * PlainPostTransport against the SDK's own StreamableHTTPClientTransport, the same calls to the same scripted
 * server: what reaches the server (method, path, headers, body) and what the caller gets (the result, or the
 * error's class, code, message and data, and what the transport reported to `onerror`) must be the same, for a
 * plain result and for every answer the fast path hands back to the SDK (error statuses, an event stream, a
 * redirect, 202, a JSON-RPC error, input_required, a malformed answer) and for a cancelled call.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, type FetchLike, type Transport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeFetch } from '../../src/client/node-fetch.js';
import { createStreamLinks } from '../../src/client/stream-links.js';
import { asReceived, runModernCall } from '../../src/client/modern-call.js';
import { PlainPostTransport, nodePostJson } from '../../src/client/plain-post.js';
import type { NodeFetch } from '../../src/client/node-fetch.js';
import type { StreamLinks } from '../../src/client/stream-links.js';

const serverInfo = { name: 'scripted', version: '1.0.0' };
const discover = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: 'private',
  _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
};
const complete = (extra: Record<string, unknown> = {}) => ({
  content: [{ type: 'text', text: 'hi', extra: 1 }],
  resultType: 'complete',
  _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
  ...extra,
});

type Answer = (id: unknown, res: ServerResponse) => void;
const json =
  (status: number, value: unknown, headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));

/** The server's answer to a tools/call, by tool name. */
const answers: Record<string, Answer> = {
  plain: (id, res) => json(200, { jsonrpc: '2.0', id, result: complete() })(res),
  charset: (id, res) =>
    json(200, { result: complete(), id, jsonrpc: '2.0' }, { 'content-type': 'application/json; charset=utf-8' })(res),
  'odd-server-info': (id, res) =>
    json(200, {
      jsonrpc: '2.0',
      id,
      result: {
        z: 1,
        ...complete(),
        _meta: { other: true, 'io.modelcontextprotocol/serverInfo': { name: 'x', version: '1', more: 2 } },
      },
    })(res),
  'bad-server-info': (id, res) =>
    json(200, { jsonrpc: '2.0', id, result: { ...complete(), _meta: { 'io.modelcontextprotocol/serverInfo': { name: 3 } } } })(
      res,
    ),
  'no-result-type': (id, res) => json(200, { jsonrpc: '2.0', id, result: { content: [] } })(res),
  'input-required': (id, res) =>
    json(200, {
      jsonrpc: '2.0',
      id,
      result: {
        resultType: 'input_required',
        inputRequests: {
          q: {
            method: 'elicitation/create',
            params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } },
          },
        },
        requestState: 'state',
      },
    })(res),
  'rpc-error': (id, res) =>
    json(200, { jsonrpc: '2.0', id, error: { code: -32020, message: 'header mismatch', data: { h: 1 } } })(res),
  'extra-key': (id, res) => json(200, { jsonrpc: '2.0', id, result: complete(), extra: true })(res),
  batch: (id, res) => json(200, [{ jsonrpc: '2.0', id, result: complete() }])(res),
  'bad-json': (_id, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":'),
  'status-400': (id, res) => json(400, { jsonrpc: '2.0', id, error: { code: -32602, message: 'bad params' } })(res),
  'status-401': (_id, res) => void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end('no'),
  'status-500': (_id, res) => void res.writeHead(500, { 'content-type': 'text/plain' }).end('boom'),
  accepted: (_id, res) => void res.writeHead(202).end(),
  text: (_id, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('hello'),
  sse: (id, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } })}\n\n`,
    );
    res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: complete() })}\n\n`);
  },
  moved: (_id, res) => void res.writeHead(307, { location: '/mcp?moved=1' }).end(),
  slow: () => undefined,
};

interface Seen {
  method: string;
  url: string;
  headers: string[];
  body: string;
}
let seen: Seen[] = [];
let server: Server;
let url: URL;

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    seen.push({ method: req.method!, url: req.url!, headers: req.rawHeaders, body });
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const message = JSON.parse(body) as { id?: unknown; method: string; params?: { name?: string } };
    if (message.id === undefined) return void res.writeHead(202).end();
    if (req.url?.includes('moved')) return answers.plain!(message.id, res);
    (answers[message.params?.name ?? ''] ?? answers.plain!)(message.id, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

type Make = (
  url: URL,
  options: { fetch: FetchLike; requestInit?: RequestInit },
  node: NodeFetch,
  links: StreamLinks,
) => Transport;
const sdk: Make = (u, o) => new StreamableHTTPClientTransport(u, o);
/** Through the transport's fetch (as for an https: upstream). */
const plain: Make = (u, o) => new PlainPostTransport(u, o);
/** Through node:http directly (an http: upstream, as mcpx connects one). */
const plainNode: Make = (u, o, node, links) => new PlainPostTransport(u, { ...o, postJson: nodePostJson(node, links) });

/** A client of its own for one call, what the server saw cleared, and what the client tells `onerror`. */
function freshClient() {
  seen = [];
  const nodeFetch = createNodeFetch();
  const links = createStreamLinks(nodeFetch.fetch);
  const client = new Client({ name: 'mcpx', version: '0.1.0' }, { capabilities: { elicitation: { form: {} } } });
  const reported: string[] = [];
  client.onerror = (error) => reported.push(`${error.constructor.name}: ${error.message}`);
  return { nodeFetch, links, client, reported };
}

/** One call through a fresh client on the given transport: what the server saw and what came back. */
async function run(
  make: Make,
  tool: string,
  opts: { abortAfterMs?: number; headers?: Record<string, string>; init?: RequestInit['headers']; bare?: boolean } = {},
) {
  const { nodeFetch, links, client, reported } = freshClient();
  // bare: no headers of the caller's at all (the usual call).
  const transport = make(
    url,
    {
      fetch: links.fetch,
      ...(opts.bare ? {} : { requestInit: { headers: opts.init ?? { 'x-config': 'c', accept: 'Application/JSON' } } }),
    },
    nodeFetch,
    links,
  );
  await client.connect(transport, { prior: { kind: 'modern', discover: discover as never } });
  const abort = new AbortController();
  if (opts.abortAfterMs !== undefined) setTimeout(() => abort.abort(new Error('stop')), opts.abortAfterMs);
  let outcome: unknown;
  try {
    const value = await client.request({ method: 'tools/call', params: { name: tool, arguments: { a: 1 } } }, asReceived, {
      allowInputRequired: true,
      timeout: 1_000,
      signal: abort.signal,
      ...(opts.bare ? {} : { headers: { 'Mcp-Param-A': '1', 'mcp-method': 'ignored', ...opts.headers } }),
    });
    outcome = { value: JSON.stringify(value) };
  } catch (error) {
    const e = error as Error & { code?: unknown; data?: unknown };
    outcome = { error: e.constructor.name, message: e.message, code: e.code, data: JSON.stringify(e.data) };
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  await client.close();
  nodeFetch.close();
  return { outcome, reported, seen };
}

describe('PlainPostTransport', () => {
  for (const tool of Object.keys(answers).filter((t) => t !== 'slow'))
    it(`matches the SDK's transport: ${tool}`, async () => {
      const expected = await run(sdk, tool);
      expect(await run(plain, tool)).toEqual(expected);
      expect(await run(plainNode, tool)).toEqual(expected);
      const bare = await run(sdk, tool, { bare: true });
      expect(await run(plainNode, tool, { bare: true })).toEqual(bare);
    });

  it("matches the SDK's transport when the call is cancelled", async () => {
    const expected = await run(sdk, 'slow', { abortAfterMs: 50 });
    for (const make of [plain, plainNode]) {
      const got = await run(make, 'slow', { abortAfterMs: 50 });
      expect(got).toEqual(expected);
      expect(got.outcome).toMatchObject({ message: expect.stringContaining('stop') });
    }
  });

  it('takes names the SDK would encode, and odd extra headers, the SDK way', async () => {
    for (const tool of ['ünïcode', ' padded', '=?base64?x?=']) {
      const expected = await run(sdk, tool);
      expect(await run(plain, tool)).toEqual(expected);
      expect(await run(plainNode, tool)).toEqual(expected);
    }
    const cases: Array<Parameters<typeof run>[2]> = [
      { headers: { 'Bad Name': 'x' } },
      { headers: { 'Mcp-Param-B': ' padded ', 'X-Tab': 'a\tb' } },
      { init: { 'X-Dup': 'a', 'x-dup': 'b', Accept: 'text/html,, Application/Json' } },
      { init: { Accept: 'text/html ' } },
      { init: { 'x-space': ' v ' } },
      { init: new Headers({ 'x-h': '1' }) },
      {
        init: [
          ['x-a', '1'],
          ['x-a', '2'],
        ],
      },
      { init: { 'set-cookie': 'c=1' } },
    ];
    for (const opts of cases) {
      const expected = await run(sdk, 'plain', opts);
      expect(await run(plain, 'plain', opts)).toEqual(expected);
      expect(await run(plainNode, 'plain', opts)).toEqual(expected);
    }
  });

  it('sends a plain call once, with the SDK transport headers', async () => {
    const got = await run(plain, 'plain');
    expect(got.seen).toHaveLength(1);
    const headers: Record<string, string> = {};
    for (let i = 0; i < got.seen[0]!.headers.length; i += 2) headers[got.seen[0]!.headers[i]!] = got.seen[0]!.headers[i + 1]!;
    expect(headers).toMatchObject({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'plain',
      'mcp-param-a': '1',
      'x-config': 'c',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    });
  });
});

/** One call as modern-call.ts makes it (through the direct path where the transport has one), on a fresh client. */
async function runCall(
  make: Make,
  tool: string,
  opts: { abortAfterMs?: number; timeoutMs?: number; init?: RequestInit['headers'] } = {},
) {
  const { nodeFetch, links, client, reported } = freshClient();
  const init = opts.init ? { requestInit: { headers: opts.init } } : {};
  await client.connect(make(url, { fetch: links.fetch, ...init }, nodeFetch, links), {
    prior: { kind: 'modern', discover: discover as never },
  });
  const abort = new AbortController();
  if (opts.abortAfterMs !== undefined) setTimeout(() => abort.abort(new Error('stop')), opts.abortAfterMs);
  let outcome: unknown;
  try {
    const { continuation, ...value } = (await runModernCall({
      client,
      server: 'scripted',
      tool,
      arguments: { a: 1 },
      callId: 'call-1',
      ttlMs: 60_000,
      requestTimeoutMs: opts.timeoutMs ?? 1_000,
      signal: abort.signal,
      now: () => 0,
    })) as { continuation?: unknown };
    // Question ids are random: only their place is compared.
    const unrandom = (text: string) => text.replace(/elc-[0-9a-f]{16}/g, 'elc-<id>');
    outcome = { value: unrandom(JSON.stringify(value)), continuation: unrandom(JSON.stringify(continuation) ?? '') };
  } catch (error) {
    const e = error as Error & { code?: unknown; data?: unknown; cause?: Error & { code?: unknown } };
    outcome = {
      error: e.constructor.name,
      message: e.message,
      code: e.code,
      data: JSON.stringify(e.data),
      cause: `${e.cause?.constructor.name}: ${e.cause?.message} (${String(e.cause?.code)})`,
    };
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  await client.close();
  nodeFetch.close();
  // The direct path posts under an id of its own: the rest of each request must be the SDK's.
  const bodies = seen.map((s) => ({
    ...s,
    headers: s.headers.map((value, i) => (s.headers[i - 1]?.toLowerCase() === 'content-length' ? '<length>' : value)),
    body: s.body.replace(/"id":("mcpx-\d+"|\d+)/, '"id":"<id>"'),
  }));
  return { outcome, reported, seen: bodies, ids: seen.map((s) => /"id":("mcpx-\d+"|\d+)/.exec(s.body)?.[1]) };
}

describe("modern-call's direct path (PlainPostTransport.sendDirect, hand-offs)", () => {
  for (const tool of Object.keys(answers).filter((t) => t !== 'slow'))
    it(`gives what the SDK's request gives: ${tool}`, async () => {
      const expected = await runCall(sdk, tool);
      const got = await runCall(plainNode, tool);
      expect({ ...got, ids: undefined }).toEqual({ ...expected, ids: undefined });
      // Sent once, past the SDK's request (its own id), whatever the answer; a hand-off is never sent again.
      expect(got.ids.filter((id) => id?.startsWith('"mcpx-'))).toHaveLength(1);
      expect(got.seen).toHaveLength(expected.seen.length);
    });

  it('is taken for a plain call, and returns the result the SDK returns', async () => {
    const got = await runCall(plainNode, 'plain');
    expect(got.ids).toEqual(['"mcpx-1"']);
    expect(JSON.parse((got.outcome as { value: string }).value)).toEqual({
      status: 'complete',
      callId: 'call-1',
      server: 'scripted',
      tool: 'plain',
      result: { content: [{ type: 'text', text: 'hi', extra: 1 }], _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo } },
    });
    // A config's headers go with it as with the SDK's request.
    const init = { authorization: 'Bearer t', 'x-config': 'c', Accept: 'text/html' };
    const withHeaders = await runCall(plainNode, 'plain', { init });
    expect(withHeaders.ids).toEqual(['"mcpx-1"']);
    expect({ ...withHeaders, ids: undefined }).toEqual({ ...(await runCall(sdk, 'plain', { init })), ids: undefined });
    // Without node:http's postJson (an https: upstream) the SDK's request sends it, as before.
    expect((await runCall(plain, 'plain')).ids).toEqual(['0']);
  });

  it("gives what the SDK's request gives when the call is cancelled or times out", async () => {
    for (const opts of [{ abortAfterMs: 50 }, { timeoutMs: 50 }]) {
      const expected = await runCall(sdk, 'slow', opts);
      const got = await runCall(plainNode, 'slow', opts);
      expect({ ...got, ids: undefined }).toEqual({ ...expected, ids: undefined });
      expect(got.ids).toEqual(['"mcpx-1"']);
    }
  });
});
