/**
 * Sampling and roots between a legacy client (v1 SDK, over stdio) and a modern upstream (the conformance fixture),
 * through `mcpx serve`: a client that declared them is asked mid-call (sampling/createMessage, roots/list) and the
 * upstream gets its answers; a client that did not is never sent them, and the call is refused with -32021.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, serveSetup, startConformanceFixture, textOf, type ServeSetup } from '../helpers/serve.js';

let upstream: { url: string; stop(): void };
let setup: ServeSetup;
const opened: Client[] = [];
beforeAll(async () => {
  upstream = await startConformanceFixture();
  setup = serveSetup({ conformance: { url: upstream.url } });
});
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  upstream?.stop();
});

/** A v1 (legacy) client of `mcpx serve` over stdio, declaring what it is given; records what it was asked. */
async function legacyClient(capabilities: Record<string, unknown>): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client({ name: 'v1-sampling', version: '1.0.0' }, { capabilities });
  if (capabilities.sampling)
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(`sampling: ${JSON.stringify(request.params.messages)}`);
      return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
    });
  if (capabilities.roots)
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
    });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--config', setup.configPath],
      env: setup.env,
      cwd: setup.dir,
      stderr: 'pipe',
    }),
  );
  opened.push(client);
  return { client, asked };
}

describe('mcpx serve: a legacy client and a modern upstream that asks for sampling or roots', () => {
  it('asks the client that declared sampling mid-call, and the upstream gets its answer', async () => {
    const { client, asked } = await legacyClient({ sampling: {}, roots: {} });
    const result = await client.callTool({ name: 'test_input_required_result_sampling', arguments: {} });
    expect(asked).toEqual([expect.stringContaining('What is the capital of France?')]);
    expect(textOf(result as Record<string, unknown>)).toContain('Paris');
  });

  it('asks the client that declared roots for them, and the upstream gets them', async () => {
    const { client, asked } = await legacyClient({ roots: {} });
    const result = await client.callTool({ name: 'test_input_required_result_list_roots', arguments: {} });
    expect(asked).toEqual(['roots']);
    expect(textOf(result as Record<string, unknown>)).toContain('file:///work/project');
  });

  it('never sends sampling to a client that declared only roots: the call is refused with -32021', async () => {
    const { client, asked } = await legacyClient({ roots: {} });
    await expect(client.callTool({ name: 'test_input_required_result_sampling', arguments: {} })).rejects.toMatchObject({
      code: -32021,
    });
    expect(asked).toEqual([]);
  });
});
