/**
 * 2026-07-28 (basic/index.mdx): a result without `resultType` is complete. A raw JSON-RPC server (no SDK on its
 * side, so nothing stamps `resultType` for it) answers over an in-memory pair, as the conformance mock's
 * `test_mrtr_no_result_type` does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';

const serverInfo = { 'io.modelcontextprotocol/serverInfo': { name: 'raw', version: '1.0.0' } };
const tools = [
  { name: 'no_result_type', inputSchema: { type: 'object' } },
  { name: 'with_result_type', inputSchema: { type: 'object' } },
  { name: 'extra_fields', inputSchema: { type: 'object' } },
  { name: 'bad_content', inputSchema: { type: 'object' } },
];

/** A modern server written by hand: answers discover, tools/list and tools/call; `no_result_type` omits resultType. */
function rawModernServer(): { connect(): InMemoryTransport; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    connect: () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      serverSide.onmessage = (message: JSONRPCMessage) => {
        if (!('method' in message) || !('id' in message)) return;
        const reply = (result: Record<string, unknown>): void =>
          void serverSide.send({ jsonrpc: '2.0', id: message.id, result } as JSONRPCMessage);
        const params = (message.params ?? {}) as Record<string, unknown>;
        if (message.method === 'server/discover') {
          reply({
            resultType: 'complete',
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: {} },
            ttlMs: 0,
            cacheScope: 'private',
            _meta: serverInfo,
          });
        } else if (message.method === 'tools/list') {
          reply({ resultType: 'complete', tools, _meta: serverInfo });
        } else if (message.method === 'tools/call') {
          calls.push(JSON.stringify(params));
          const content = [{ type: 'text', text: `${String(params.name)} done` }];
          if (params.name === 'extra_fields')
            reply({ resultType: 'complete', content: [{ ...content[0], newField: { kept: true } }], _meta: serverInfo });
          else if (params.name === 'bad_content')
            reply({ resultType: 'complete', content: [{ type: 'text' }], _meta: serverInfo });
          else
            reply(
              params.name === 'no_result_type'
                ? { content, _meta: serverInfo }
                : { resultType: 'complete', content, _meta: serverInfo },
            );
        } else {
          void serverSide.send({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: -32601, message: 'Method not found' },
          } as JSONRPCMessage);
        }
      };
      void serverSide.start();
      return clientSide;
    },
  };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function setup(era: 'auto' | 'modern'): Promise<{ mcpx: Mcpx; calls: string[] }> {
  const server = rawModernServer();
  const mcpx = await createMcpx({
    config: { mcpServers: {} },
    eraCache: createMemoryEraCache(),
    answerLater: true,
    servers: { raw: { connect: server.connect, era } },
  });
  closers.push(() => mcpx.close());
  return { mcpx, calls: server.calls };
}

describe('a modern result without resultType', () => {
  it.each<'auto' | 'modern'>(['modern', 'auto'])('is complete, and the call is not retried (era %s)', async (era) => {
    const { mcpx, calls } = await setup(era);
    expect(await mcpx.era('raw')).toBe('modern');
    const outcome = await mcpx.callTool('raw', 'no_result_type', {});
    expect(outcome).toMatchObject({
      status: 'complete',
      server: 'raw',
      tool: 'no_result_type',
      result: { content: [{ type: 'text', text: 'no_result_type done' }] },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]).not.toContain('inputResponses');
    const stamped = await mcpx.callTool('raw', 'with_result_type', {});
    expect(stamped.status === 'complete' && stamped.result.content).toEqual([{ type: 'text', text: 'with_result_type done' }]);
  });
});

describe('a modern result', () => {
  it('keeps content-block fields the SDK does not know, as the server sent them', async () => {
    const { mcpx } = await setup('modern');
    const outcome = await mcpx.callTool('raw', 'extra_fields', {});
    expect(outcome.status === 'complete' && outcome.result.content).toEqual([
      { type: 'text', text: 'extra_fields done', newField: { kept: true } },
    ]);
  });

  it('is still refused when it breaks the wire schema', async () => {
    const { mcpx } = await setup('modern');
    await expect(mcpx.callTool('raw', 'bad_content', {})).rejects.toThrow(/Invalid result/);
  });
});
