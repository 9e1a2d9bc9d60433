/**
 * SEP-2243 custom headers: a modern HTTP tool call carries `Mcp-Param-*` headers built from the tool's
 * `x-mcp-header` declarations, even when the tool was never listed (mcpx lists on a miss). The v2 server's HTTP
 * entry refuses a call whose headers are missing or disagree (-32020), so a complete result proves they arrived.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { encodeValue, paramHeaders, scanHeaderDeclarations } from '../../src/client/param-headers.js';
import { fixtureEcho, startHttpFixture, type HttpFixture } from '../helpers/fixture-servers.js';

describe('Mcp-Param headers', () => {
  let fixture: HttpFixture;
  beforeAll(async () => {
    fixture = await startHttpFixture('dual-era');
  }, 60_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it.each(['us-west1', 'Hello, 世界', ' padded '])(
    'calls a tool with a declared header without listing it first (%j)',
    async (region) => {
      const mcpx = await createMcpx({
        config: { mcpServers: { fx: { url: fixture.url, era: 'modern' } } },
        eraCache: createMemoryEraCache(),
        env: { MCPX_STATE_DIR: '/nonexistent' },
      });
      try {
        const outcome = await mcpx.callTool('fx', 'region_echo', { region });
        if (outcome.status !== 'complete') throw new Error(`expected complete, got ${JSON.stringify(outcome)}`);
        expect(outcome.result.isError).toBeFalsy();
        expect(fixtureEcho(outcome.result).text).toBe(region);
      } finally {
        await mcpx.close();
      }
    },
  );

  it('builds plain and base64 values, and omits null and non-primitive ones', () => {
    const scan = scanHeaderDeclarations({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        n: { type: 'integer', 'x-mcp-header': 'N' },
        flag: { type: 'boolean', 'x-mcp-header': 'Flag' },
        q: { type: 'string' },
      },
    });
    if (!scan.valid) throw new Error(scan.reason);
    expect(paramHeaders(scan.declarations, { region: 'eu', n: 42, flag: false, q: 'x' })).toEqual({
      'Mcp-Param-Region': 'eu',
      'Mcp-Param-N': '42',
      'Mcp-Param-Flag': 'false',
    });
    expect(paramHeaders(scan.declarations, { region: null, n: 1 })).toEqual({ 'Mcp-Param-N': '1' });
    expect(encodeValue('line1\nline2')).toBe(`=?base64?${Buffer.from('line1\nline2').toString('base64')}?=`);
    expect(encodeValue('')).toBe('=?base64??=');
  });

  it('refuses declarations the spec forbids', () => {
    expect(scanHeaderDeclarations({ type: 'object', properties: { s: { type: 'number', 'x-mcp-header': 'S' } } }).valid).toBe(
      false,
    );
    expect(
      scanHeaderDeclarations({
        type: 'object',
        properties: { a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } },
      }).valid,
    ).toBe(false);
    expect(
      scanHeaderDeclarations({ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'My Region' } } }).valid,
    ).toBe(false);
  });
});
