/**
 * The daemon's /openapi.json describes each configured tool as its own path (§5.3: "a 202 response on every tool
 * path"): the input schema as the request body, the output schema in the 200 response, beside the generic route.
 * A real daemon over a fixture MCP server and an OpenAPI adapter (the notes API, whose tools have output schemas);
 * the document validates; a call through a per-tool path works; mcpx's own OpenAPI adapter sees the operations.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNotesApi } from '../../examples/servers/notes-api.mjs';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { createMcpx } from '../../src/mcpx.js';
import { runDaemon, type RunningDaemon } from '../../src/surfaces/daemon/daemon.js';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { openDaemonParts } from '../../src/surfaces/daemon/daemon-wiring.js';
import { fixtureEcho, stdioFixture } from '../helpers/fixture-servers.js';

type Operation = {
  operationId: string;
  requestBody: { content: { 'application/json': { schema: Record<string, unknown> } } };
  responses: Record<string, { content?: { 'application/json': { schema: Record<string, unknown> } } }>;
};
type Doc = { paths: Record<string, { post?: Operation }>; components: { schemas: Record<string, unknown> } };

let daemon: RunningDaemon;
let api: Awaited<ReturnType<typeof startNotesApi>>;
let base: string;
let doc: Doc;
const auth = () => ({ authorization: `Bearer ${daemon.state.token}` });

beforeAll(async () => {
  api = await startNotesApi();
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-openapi-tools-'));
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      mcpServers: {
        fx: { ...stdioFixture('dual-era'), era: 'modern' },
        notes: { openapi: `${api.url}/openapi.json`, methods: ['all'], confirm: [] },
      },
    }),
  );
  const env = { MCPX_STATE_DIR: join(dir, 'state'), PATH: process.env.PATH ?? '' };
  daemon = await runDaemon({
    paths: daemonPaths(env, configPath),
    version: '0.1.0-test',
    openParts: () => openDaemonParts({ env, cwd: dir, configPath, version: '0.1.0-test' }),
    idleMs: 0,
    port: 0,
  });
  base = `http://127.0.0.1:${daemon.state.port}`;
  doc = (await (await fetch(`${base}/openapi.json`, { headers: auth() })).json()) as Doc;
}, 60_000);

afterAll(async () => {
  await daemon?.stop('test over');
  await api?.close();
});

describe('GET /openapi.json, per tool', () => {
  it('validates as OpenAPI 3.1 with a path per tool beside the generic route', async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc.paths['/v1/call/{server}/{tool}']?.post).toBeDefined();
    const form = doc.paths['/v1/call/fx/ask_form']!.post!;
    expect(form.operationId).toBe('call_fx_ask_form');
    expect(form.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      properties: { title: expect.anything() },
    });
    expect(Object.keys(form.responses)).toEqual(expect.arrayContaining(['200', '202']));
    expect(form.responses['202']!.content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/InputRequired' });
  });

  it("puts an adapter tool's output schema in the 200 response, so a generated client is typed", async () => {
    const [path, item] = Object.entries(doc.paths).find(([p]) => p.startsWith('/v1/call/notes/') && p.includes('list'))!;
    const ok = item.post!.responses['200']!.content!['application/json'].schema as {
      properties: { result: { properties: { structuredContent?: unknown } } };
    };
    expect(path).toMatch(/^\/v1\/call\/notes\//);
    expect(ok.properties.result.properties.structuredContent).toBeDefined();
  });

  it('serves a call through a per-tool path', async () => {
    const response = await fetch(`${base}/v1/call/fx/no_ask`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'per tool' }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; result: never };
    expect(body.status).toBe('complete');
    expect(JSON.stringify(fixtureEcho(body.result))).toContain('per tool');
  });

  it("is read by mcpx's own OpenAPI adapter as one tool per configured tool", async () => {
    const mcpx = await createMcpx({
      config: {
        mcpServers: { self: { openapi: `${base}/openapi.json`, headers: auth(), methods: ['all'], confirm: [] } },
      } as never,
      env: {},
      eraCache: createMemoryEraCache(),
    });
    try {
      const tools = await mcpx.listTools('self');
      const perTool = tools.find((t) => t.name === 'call_fx_ask_form');
      expect(perTool).toBeDefined();
      expect(perTool!.inputSchema).toMatchObject({ properties: { body: { properties: { title: expect.anything() } } } });
      const echo = await mcpx.callTool('self', 'call_fx_no_ask', { body: { text: 'adapted' } });
      expect(echo.status).toBe('complete');
      expect(JSON.stringify(echo.status === 'complete' ? echo.result.content : null)).toContain('adapted');
    } finally {
      await mcpx.close();
    }
  });
});
