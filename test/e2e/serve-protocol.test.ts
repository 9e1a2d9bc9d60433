/**
 * `mcpx serve --http` on the 2026-07-28 wire, raw: `server/discover`, -32022 (a version mcpx does not speak, with
 * `supported`), and -32021 (the upstream needs a client capability the request did not declare), in front of the
 * conformance fixture (a real v2 server over Streamable HTTP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernPost, serveSetup, startConformanceFixture, startHttpServe, type HttpServeProcess } from '../helpers/serve.js';

const MODERN = '2026-07-28';

let upstream: { url: string; stop(): void };
let serve: HttpServeProcess;

beforeAll(async () => {
  upstream = await startConformanceFixture();
  serve = await startHttpServe(serveSetup({ conformance: { url: upstream.url } }));
});
afterAll(async () => {
  await serve?.close();
  upstream?.stop();
});

describe('mcpx serve on the 2026-07-28 wire', () => {
  it('answers server/discover with the versions it speaks and its own serverInfo', async () => {
    const { status, body } = await modernPost(serve.url, 'server/discover', {});
    expect(status).toBe(200);
    expect(body.result?.supportedVersions).toContain(MODERN);
    expect(body.result?.capabilities).toMatchObject({ tools: {} });
    expect(body.result?._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'mcpx' });
  });

  it('refuses a version it does not speak with -32022, naming the versions it does', async () => {
    for (const method of ['server/discover', 'tools/list']) {
      const { body } = await modernPost(serve.url, method, {}, { version: '2099-01-01' });
      expect(body.error?.code).toBe(-32022);
      expect(body.error?.data).toMatchObject({ requested: '2099-01-01' });
      expect(body.error?.data?.supported).toContain(MODERN);
    }
  });

  // Both paths: a client that declared nothing (held by mcpx), and one that declared roots only (relayed).
  for (const capabilities of [{}, { roots: {} }]) {
    it(`passes on -32021 with requiredCapabilities when the upstream needs a capability the request did not declare (declared: ${JSON.stringify(capabilities)})`, async () => {
      const { status, body } = await modernPost(
        serve.url,
        'tools/call',
        { name: 'test_missing_capability', arguments: {} },
        { capabilities },
      );
      expect(body.error?.code).toBe(-32021);
      expect(body.error?.data?.requiredCapabilities).toEqual({ sampling: {} });
      expect(status).toBe(400);
    });
  }
});
