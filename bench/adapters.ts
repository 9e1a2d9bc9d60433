/**
 * The OpenAPI adapter: the tool list of a 500-operation document (read, parsed, $refs inlined, served by the
 * in-process MCP server and listed through the client pool), cold in a fresh mcpx instance each time (target:
 * under 200 ms); and a call's overhead over a plain `fetch` of the same request to a local API (target: under
 * 1 ms p50). Calls are interleaved with fetches so machine load hits both alike.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNotesApi } from '../examples/servers/notes-api.mjs';
import { createMemoryEraCache } from '../src/client/era-cache.js';
import { createMcpx } from '../src/mcpx.js';
import type { BenchFigure, BenchSuite } from './index.js';

const LIST_RUNS = Number(process.env.BENCH_ADAPTER_LIST_RUNS ?? 10);
const CALLS = Number(process.env.BENCH_ADAPTER_CALLS ?? 300);

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))]!;
};

/** A document like a real API's: 100 resources × (list, get, create, update, delete), shared component schemas. */
function document500(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (let r = 0; r < 100; r++) {
    const name = `Thing${r}`;
    schemas[name] = {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        name: { type: 'string', maxLength: 200 },
        tags: { type: 'array', items: { type: 'string' } },
        owner: { $ref: '#/components/schemas/User' },
        state: { type: 'string', enum: ['open', 'closed'] },
      },
      required: ['id', 'name'],
    };
    const ref = { $ref: `#/components/schemas/${name}` };
    const json = (schema: unknown) => ({ 'application/json': { schema } });
    paths[`/things${r}`] = {
      get: {
        operationId: `list_things${r}`,
        summary: `List things ${r}`,
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
          { name: 'cursor', in: 'query', schema: { type: 'string' } },
        ],
        responses: {
          200: { description: 'ok', content: json({ type: 'object', properties: { items: { type: 'array', items: ref } } }) },
        },
      },
      post: {
        operationId: `create_thing${r}`,
        requestBody: { required: true, content: json(ref) },
        responses: { 201: { description: 'created', content: json(ref) } },
      },
    };
    paths[`/things${r}/{id}`] = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { operationId: `get_thing${r}`, responses: { 200: { description: 'ok', content: json(ref) } } },
      put: {
        operationId: `update_thing${r}`,
        requestBody: { content: json(ref) },
        responses: { 200: { description: 'ok', content: json(ref) } },
      },
      delete: { operationId: `delete_thing${r}`, responses: { 204: { description: 'deleted' } } },
    };
  }
  schemas.User = { type: 'object', properties: { login: { type: 'string' }, email: { type: 'string', format: 'email' } } };
  return {
    openapi: '3.1.0',
    info: { title: 'bench', version: '1' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths,
    components: { schemas },
  };
}

export const run: BenchSuite = async () => {
  const figures: BenchFigure[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-adapters-'));
  const docPath = join(dir, 'api.json');
  writeFileSync(docPath, JSON.stringify(document500()));

  const listTimes: number[] = [];
  let toolCount = 0;
  for (let i = 0; i < LIST_RUNS; i++) {
    const started = performance.now();
    const mcpx = await createMcpx({
      config: { mcpServers: { big: { openapi: docPath, methods: ['all'] } } } as never,
      env: {},
      eraCache: createMemoryEraCache(),
      answerLater: true,
    });
    toolCount = (await mcpx.listTools('big')).length;
    listTimes.push(performance.now() - started);
    await mcpx.close();
  }
  figures.push({
    suite: 'adapters',
    name: `tool list, ${toolCount}-operation OpenAPI document, fresh instance (median of ${LIST_RUNS})`,
    value: percentile(listTimes, 0.5),
    unit: 'ms',
    target: '< 200 ms',
  });
  figures.push({
    suite: 'adapters',
    name: 'tool list, 500-operation document, first in process',
    value: listTimes[0]!,
    unit: 'ms',
    note: 'includes loading the parser and the MCP server modules',
  });

  const api = await startNotesApi();
  const mcpx = await createMcpx({
    config: { mcpServers: { api: { openapi: `${api.url}/openapi.json` } } } as never,
    env: {},
    eraCache: createMemoryEraCache(),
    answerLater: true,
  });
  try {
    const create = await fetch(`${api.url}/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'bench' }),
    });
    const { id } = (await create.json()) as { id: number };
    await mcpx.callTool('api', 'get_note', { id }); // connect and warm up outside the timing
    const plain: number[] = [];
    const adapted: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      let started = performance.now();
      const response = await fetch(`${api.url}/notes/${id}`, { headers: { accept: 'application/json' } });
      JSON.parse(await response.text());
      plain.push(performance.now() - started);
      started = performance.now();
      const outcome = await mcpx.callTool('api', 'get_note', { id });
      if (outcome.status !== 'complete' || outcome.result.isError) throw new Error('the adapter call failed');
      adapted.push(performance.now() - started);
    }
    figures.push({
      suite: 'adapters',
      name: `plain fetch GET /notes/{id} p50 (${CALLS} calls)`,
      value: percentile(plain, 0.5),
      unit: 'ms',
    });
    figures.push({
      suite: 'adapters',
      name: `adapter call get_note p50 (${CALLS} calls)`,
      value: percentile(adapted, 0.5),
      unit: 'ms',
    });
    figures.push({
      suite: 'adapters',
      name: 'adapter overhead over plain fetch, p50',
      value: percentile(adapted, 0.5) - percentile(plain, 0.5),
      unit: 'ms',
      target: '< 1 ms p50',
    });
    figures.push({
      suite: 'adapters',
      name: 'adapter overhead over plain fetch, p90',
      value: percentile(adapted, 0.9) - percentile(plain, 0.9),
      unit: 'ms',
    });
  } finally {
    await mcpx.close();
    await api.close();
  }
  return figures;
};
