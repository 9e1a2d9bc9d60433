/**
 * `mcpx serve` (the built CLI over stdio) relays an upstream's JSON-RPC error for resources/read and prompts/get as
 * the upstream gave it: code, message and data. The conformance referee's `sep-2164-data-uri` passed directly and
 * only warned through serve, which dropped `data.uri` from a resource-not-found error. Real v2 (both eras) and v1
 * clients, in front of a v2 fixture (the dual-era one plus a prompt that refuses with data) spoken modern and legacy.
 */
import { resolve } from 'node:path';
import { Client as V2Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup, stdioServe, type ServeSetup } from '../helpers/serve.js';

const FIXTURE = resolve(import.meta.dirname, '..', 'fixtures', 'servers', 'structured-asks.mjs');
const MISSING = 'mcpx-fixture://no-such-resource';

let setup: ServeSetup;
beforeAll(() => {
  setup = serveSetup({
    modern: { command: process.execPath, args: [FIXTURE], era: 'modern' },
    legacy: { command: process.execPath, args: [FIXTURE], era: 'legacy' },
  });
});

interface RawClient {
  readResource(uri: string): Promise<unknown>;
  getPrompt(name: string, args: Record<string, string>): Promise<unknown>;
  close(): Promise<void>;
}

/** A client of a serve of one upstream (so the upstream's names and URIs are served as they are). */
async function open(kind: 'v2-modern' | 'v2-legacy' | 'v1', server: string): Promise<RawClient> {
  const spawned = stdioServe(setup);
  const transport = { ...spawned, args: [...spawned.args, server] };
  if (kind === 'v1') {
    const client = new V1Client({ name: 'v1-test', version: '1.0.0' });
    await client.connect(new V1Stdio(transport));
    return {
      readResource: (uri) => client.readResource({ uri }),
      getPrompt: (name, args) => client.getPrompt({ name, arguments: args }),
      close: () => client.close(),
    };
  }
  const client = new V2Client(
    { name: 'v2-test', version: '1.0.0' },
    { versionNegotiation: { mode: kind === 'v2-modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  await client.connect(new V2Stdio(transport));
  return {
    readResource: (uri) => client.readResource({ uri }),
    getPrompt: (name, args) => client.getPrompt({ name, arguments: args }),
    close: () => client.close(),
  };
}

/** The JSON-RPC error a request was refused with, as either SDK hands it over. */
async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string; data: unknown }> {
  const error: unknown = await request.then(
    (result) => {
      throw new Error(`expected a JSON-RPC error, got a result: ${JSON.stringify(result)}`);
    },
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ProtocolError) && !(error instanceof McpError)) throw error;
  return { code: error.code, message: error.message, data: error.data };
}

const cases = (['v2-modern', 'v2-legacy', 'v1'] as const).flatMap((client) =>
  ['modern', 'legacy'].map((upstream) => ({ client, upstream })),
);

// One serve (and its upstream) per client and upstream: both requests go over the same connection.
describe.each(cases)('the $client client, through serve, in front of the $upstream upstream', ({ client: kind, upstream }) => {
  let client: RawClient;
  beforeAll(async () => {
    client = await open(kind, upstream);
  });
  afterAll(() => client?.close());

  it("gets a missing resource's error with its code, message and data.uri", async () => {
    const error = await refusal(client.readResource(MISSING));
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ uri: MISSING });
    expect(error.message).toContain(`Resource not found: ${MISSING}`);
  });

  it("gets a prompt's refusal with the upstream's code, message and data", async () => {
    const error = await refusal(client.getPrompt('topic_prompt', { topic: 'cooking' }));
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ topic: 'cooking', known: ['mcp'] });
    expect(error.message).toContain('Unknown topic: cooking');
  });
});
