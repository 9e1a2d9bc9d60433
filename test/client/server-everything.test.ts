/**
 * The seam against a real npm server built on the v1 SDK: server-everything's elicitation tools (form requests with
 * no `mode` field, 13 fields with defaults and formats; url mode with an elicitationId).
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import type { Question } from '../../src/types.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('server-everything (v1) through the seam', () => {
  let mcpx: Mcpx;
  const seen: Question[] = [];
  const opened: string[] = [];
  let answer: 'accept' | 'decline' = 'accept';
  beforeAll(async () => {
    mcpx = await createMcpx({
      config: { mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } },
      eraCache: createMemoryEraCache(),
      onElicit: async (q) => {
        seen.push(q);
        if (answer === 'decline') return { action: 'decline' };
        return q.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Ada Lovelace' } };
      },
      openUrl: async (url) => {
        opened.push(url);
        return true;
      },
    });
    expect(await mcpx.era('everything')).toBe('legacy');
  }, 60_000);
  afterAll(async () => {
    await mcpx?.close();
  });

  async function text(tool: string, args: Record<string, unknown>): Promise<string> {
    // Its elicitation tools appear just after initialize (tools/list_changed): wait until they are listed.
    for (let i = 0; i < 50 && !(await mcpx.listTools('everything')).some((t) => t.name === tool); i++)
      await new Promise((r) => setTimeout(r, 100));
    const outcome = await mcpx.callTool('everything', tool, args);
    if (outcome.status !== 'complete') throw new Error(`expected complete: ${JSON.stringify(outcome)}`);
    return JSON.stringify(outcome.result.content);
  }

  it('answers a form without a mode field, filling the schema defaults in', async () => {
    answer = 'accept';
    seen.length = 0;
    const result = await text('trigger-elicitation-request', {});
    expect(seen[0]).toMatchObject({ mode: 'form', era: 'legacy', server: 'everything', tool: 'trigger-elicitation-request' });
    expect(result).toContain('Ada Lovelace');
    // Defaults the person did not type reached the server.
    expect(result).toContain('It was a dark and stormy night.');
    expect(result).toContain('42');
  });

  it('tells the server decline as decline', async () => {
    answer = 'decline';
    expect(await text('trigger-elicitation-request', {})).toMatch(/declin/i);
  });

  it('opens a url-mode page and keeps the server elicitationId on the question', async () => {
    answer = 'accept';
    seen.length = 0;
    await text('trigger-url-elicitation', { url: 'https://modelcontextprotocol.io' });
    expect(seen[0]).toMatchObject({ mode: 'url', url: 'https://modelcontextprotocol.io' });
    expect(seen[0]!.elicitationId).toEqual(expect.any(String));
    expect(opened).toEqual(['https://modelcontextprotocol.io']);
  });
});
