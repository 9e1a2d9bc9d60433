/**
 * Sampling and roots between legacy clients (v1 SDK) and a legacy upstream (the conformance fixture spoken
 * 2025-11-25: its legacy shim sends real sampling/createMessage and roots/list requests), through `mcpx serve` over
 * stdio and Streamable HTTP. The upstream's shared connection declares neither; a client that declared them gets
 * connections of its own that do, so the upstream's requests reach that client and no other.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { stdioServe, textOf } from '../helpers/serve.js';
import { useConformanceSetup, useHttpServe } from '../helpers/serve-hooks.js';

const setup = useConformanceSetup((url) => ({ legacy: { url, era: 'legacy' } }));

/** A v1 client declaring what it is given; its sampling answers `answer`; records what it was asked. */
async function legacyClient(over: { url: string } | 'stdio', capabilities: Record<string, unknown>, answer = 'Paris') {
  const asked: string[] = [];
  const client = new Client({ name: 'v1-sampling', version: '1.0.0' }, { capabilities });
  if (capabilities.sampling)
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(`sampling: ${JSON.stringify(request.params.messages)}`);
      return { role: 'assistant', content: { type: 'text', text: answer }, model: 'test-model' };
    });
  if (capabilities.roots)
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asked.push('roots');
      return { roots: [{ uri: `file:///work/${answer}`, name: answer }] };
    });
  const transport =
    over === 'stdio' ? new StdioClientTransport(stdioServe(setup)) : new StreamableHTTPClientTransport(new URL(over.url));
  await client.connect(transport);
  return {
    asked,
    call: async (name: string) => textOf((await client.callTool({ name, arguments: {} })) as Record<string, unknown>),
    close: async () => {
      if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

describe('mcpx serve (stdio): a legacy upstream asks a legacy client that declared sampling or roots', () => {
  it('puts the sampling request to the client mid-call, and the upstream gets its answer', async () => {
    const client = await legacyClient('stdio', { sampling: {} });
    try {
      expect(await client.call('test_input_required_result_sampling')).toContain('Paris');
      expect(client.asked).toEqual([expect.stringContaining('What is the capital of France?')]);
    } finally {
      await client.close();
    }
  });

  it('puts roots/list to the client, and the upstream gets its roots', async () => {
    const client = await legacyClient('stdio', { roots: {} });
    try {
      expect(await client.call('test_input_required_result_list_roots')).toContain('file:///work/Paris');
      expect(client.asked).toEqual(['roots']);
    } finally {
      await client.close();
    }
  });
});

describe('mcpx serve --http: several legacy clients, one legacy upstream', () => {
  const serve = useHttpServe(setup);

  it("each client that declared sampling is asked its own calls' questions, and one that did not is asked none", async () => {
    const [paris, rome, none] = await Promise.all([
      legacyClient(serve, { sampling: {}, roots: {} }, 'Paris'),
      legacyClient(serve, { sampling: {}, roots: {} }, 'Rome'),
      legacyClient(serve, {}),
    ]);
    try {
      const [a, b, c] = await Promise.all([
        paris.call('test_input_required_result_sampling'),
        rome.call('test_input_required_result_sampling'),
        none.call('test_input_required_result_sampling'),
      ]);
      expect(a).toContain('Paris');
      expect(a).not.toContain('Rome');
      expect(b).toContain('Rome');
      expect(b).not.toContain('Paris');
      // The shared connection declares no sampling: the upstream refuses to ask it.
      expect(c).toContain('did not declare the required capability');
      expect(paris.asked).toHaveLength(1);
      expect(rome.asked).toHaveLength(1);
      expect(none.asked).toEqual([]);
      expect(await rome.call('test_input_required_result_list_roots')).toContain('file:///work/Rome');
      expect(paris.asked).toHaveLength(1);
    } finally {
      await Promise.all([paris.close(), rome.close(), none.close()]);
    }
  });
});
