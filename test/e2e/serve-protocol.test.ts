/**
 * `mcpx serve --http` on the 2026-07-28 wire, raw: `server/discover`, -32022 (a version mcpx does not speak, with
 * `supported`), and -32021 (the upstream needs a client capability the request did not declare), in front of the
 * conformance fixture (a real v2 server over Streamable HTTP).
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup, startHttpServe, type HttpServeProcess } from '../helpers/serve.js';

const FIXTURE = join(resolve(import.meta.dirname, '..', '..'), 'examples', 'servers', 'conformance.mjs');
const MODERN = '2026-07-28';

let upstream: { url: string; stop(): void };
let serve: HttpServeProcess;

beforeAll(async () => {
  const child = spawn(process.execPath, [FIXTURE, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) done(out.split('\n')[0]!.trim());
    });
    child.once('exit', (code) => fail(new Error(`the conformance fixture exited (${code})`)));
  });
  upstream = { url, stop: () => child.kill('SIGTERM') };
  serve = await startHttpServe(serveSetup({ conformance: { url } }));
});
afterAll(async () => {
  await serve?.close();
  upstream?.stop();
});

/** One modern POST: the envelope in `_meta` and the headers SEP-2243 asks for. */
async function post(method: string, params: Record<string, unknown>, options: { version?: string; capabilities?: Record<string, unknown> } = {}) {
  const version = options.version ?? MODERN;
  const response = await fetch(serve.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version, 'mcp-method': method, ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {} },
      },
    }),
  });
  const text = await response.text();
  // A JSON body, or one SSE event carrying it.
  const json = text.trim().startsWith('{') ? text : (text.split('\n').find((line) => line.startsWith('data:'))?.slice(5) ?? '{}');
  return { status: response.status, body: JSON.parse(json) as { result?: Record<string, any>; error?: { code: number; message: string; data?: Record<string, any> } } };
}

describe('mcpx serve on the 2026-07-28 wire', () => {
  it('answers server/discover with the versions it speaks and its own serverInfo', async () => {
    const { status, body } = await post('server/discover', {});
    expect(status).toBe(200);
    expect(body.result?.supportedVersions).toContain(MODERN);
    expect(body.result?.capabilities).toMatchObject({ tools: {} });
    expect(body.result?._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'mcpx' });
  });

  it('refuses a version it does not speak with -32022, naming the versions it does', async () => {
    for (const method of ['server/discover', 'tools/list']) {
      const { body } = await post(method, {}, { version: '2099-01-01' });
      expect(body.error?.code).toBe(-32022);
      expect(body.error?.data).toMatchObject({ requested: '2099-01-01' });
      expect(body.error?.data?.supported).toContain(MODERN);
    }
  });

  it('passes on -32021 with requiredCapabilities when the upstream needs a capability the request did not declare', async () => {
    const { status, body } = await post('tools/call', { name: 'test_missing_capability', arguments: {} }, { capabilities: {} });
    expect(body.error?.code).toBe(-32021);
    expect(body.error?.data?.requiredCapabilities).toEqual({ sampling: {} });
    expect(status).toBe(400);
  });
});
