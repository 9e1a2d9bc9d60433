/**
 * OpenAPI documents meant to hurt: huge, cyclic, alias-bombed, pointing at remote $refs, with names that collide
 * or are not identifiers. Each gives a clear error or a warning, and none hangs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiTools, MAX_OPERATIONS } from '../../src/adapters/openapi/tools.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { McpxError } from '../../src/errors.js';
import { createMcpx } from '../../src/mcpx.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-hostile-'));
let files = 0;
function write(doc: unknown, ext = 'json'): string {
  const path = join(dir, `doc-${++files}.${ext}`);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return path;
}
const base = { openapi: '3.1.0', info: { title: 't', version: '1' }, servers: [{ url: 'http://127.0.0.1:9' }] };
const ok = { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };
const context = { baseDir: dir, env: {} };

async function failure(config: Record<string, unknown>): Promise<McpxError> {
  const error = await openApiTools('api', { openapi: '', ...config } as never, context).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpxError);
  expect((error as McpxError).code).toBe('ADAPTER_INVALID');
  return error as McpxError;
}

describe('hostile OpenAPI documents', () => {
  it('refuses a document larger than the cap before reading it', async () => {
    const path = join(dir, 'huge.json');
    writeFileSync(path, `{"openapi":"3.1.0","paths":{},"x-pad":"${'x'.repeat(21 * 1024 * 1024)}"}`);
    const error = await failure({ openapi: path });
    expect(error.message).toMatch(
      /^adapter "api": .*huge\.json is 21\.0 MiB, larger than the 20\.0 MiB an OpenAPI document may be$/,
    );
  });

  it('serves at most MAX_OPERATIONS operations and says how many were left out', async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < MAX_OPERATIONS + 50; i++) paths[`/r${i}`] = { get: { operationId: `op${i}`, responses: ok } };
    const set = await openApiTools('api', { openapi: write({ ...base, paths }) }, context);
    expect(set.tools).toHaveLength(MAX_OPERATIONS);
    expect(set.warnings).toContain(
      `the document has ${MAX_OPERATIONS + 50} operations allowed by "methods"; only the first ${MAX_OPERATIONS} are tools`,
    );
  });

  it('cuts a cyclic $ref where it closes, with a warning, and the schema stays plain JSON', async () => {
    const doc = {
      ...base,
      paths: {
        '/tree': {
          get: {
            operationId: 'tree',
            responses: {
              200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } },
            },
          },
        },
      },
      components: {
        schemas: {
          Node: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
              other: { $ref: '#/components/schemas/A' },
            },
          },
          A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } },
          B: { type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } },
        },
      },
    };
    const set = await openApiTools('api', { openapi: write(doc) }, context);
    const output = set.tools[0]!.definition.outputSchema as Record<string, any>;
    expect(output.properties.children.items).toEqual({ description: '(recursive Node: not expanded)' });
    expect(output.properties.other.properties.b.properties.a).toEqual({ description: '(recursive A: not expanded)' });
    expect(set.warnings).toContain(
      'GET /tree response: #/components/schemas/Node refers to itself (a cycle); the inner occurrence is left open',
    );
    expect(() => JSON.stringify(set.tools[0]!.definition)).not.toThrow();
  });

  it('survives a YAML alias bomb: the schema is cut at its node budget, with a warning', async () => {
    const levels = ['a: &a {type: string}'];
    for (let i = 1; i <= 12; i++)
      levels.push(
        `l${i}: &l${i} {type: object, properties: {p1: *${i === 1 ? 'a' : `l${i - 1}`}, p2: *${i === 1 ? 'a' : `l${i - 1}`}, p3: *${i === 1 ? 'a' : `l${i - 1}`}}}`,
      );
    const yaml = `openapi: 3.1.0
info: {title: bomb, version: '1'}
servers: [{url: 'http://127.0.0.1:9'}]
x-bomb:
${levels.map((l) => `  ${l}`).join('\n')}
paths:
  /bomb:
    post:
      operationId: bomb
      requestBody: {content: {application/json: {schema: *l12}}}
      responses: {'204': {description: ok}}
`;
    const set = await openApiTools('api', { openapi: write(yaml, 'yaml'), methods: ['ALL'] }, context);
    expect(set.tools.map((t) => t.definition.name)).toEqual(['bomb']);
    expect(set.warnings.some((w) => /^POST \/bomb request body: the schema is larger than 5000 nodes/.test(w))).toBe(true);
  });

  it('refuses remote $refs unless the entry allows them, naming them', async () => {
    const doc = {
      ...base,
      paths: {
        '/a': {
          get: {
            operationId: 'a',
            responses: {
              200: {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: 'https://example.com/schemas/a.json' } } },
              },
            },
          },
        },
        '/b': {
          get: {
            operationId: 'b',
            responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: './other.json#/B' } } } } },
          },
        },
      },
    };
    const error = await failure({ openapi: write(doc) });
    expect(error.message).toMatch(
      /has \$refs to other files or URLs \("https:\/\/example\.com\/schemas\/a\.json", "\.\/other\.json#\/B"\); they are not followed unless the entry sets "allowRemoteRefs": true$/,
    );
  });

  it('follows a $ref to another file when the entry allows it', async () => {
    writeFileSync(
      join(dir, 'other.json'),
      JSON.stringify({ B: { type: 'object', properties: { fromOtherFile: { type: 'boolean' } } } }),
    );
    const doc = {
      ...base,
      paths: {
        '/b': {
          get: {
            operationId: 'b',
            responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: './other.json#/B' } } } } },
          },
        },
      },
    };
    const set = await openApiTools('api', { openapi: write(doc), allowRemoteRefs: true }, context);
    expect(set.tools[0]!.definition.outputSchema).toMatchObject({ properties: { fromOtherFile: { type: 'boolean' } } });
  });

  it('makes names safe and unique, and reports each rename', async () => {
    const doc = {
      ...base,
      paths: {
        '/things': { get: { operationId: 'listThings', responses: ok } },
        '/things/{id}': {
          get: { operationId: 'listThings', responses: ok },
          delete: { operationId: 'delete thing/{id}', responses: ok },
          put: { responses: ok },
        },
        '/x': { get: { operationId: `very${'Long'.repeat(30)}`, responses: ok } },
      },
    };
    const set = await openApiTools('api', { openapi: write(doc), methods: ['ALL'] }, context);
    const names = set.tools.map((t) => t.definition.name);
    expect(names.slice(0, 4)).toEqual(['listThings', 'listThings_2', 'put_things_id', 'delete_thing_id']);
    expect(names[4]).toMatch(/^veryLong[A-Za-z]{47}_[0-9a-f]{8}$/);
    expect(names[4]!.length).toBe(64);
    expect(set.warnings).toEqual(
      expect.arrayContaining([
        'GET /things/{id}: the name "listThings" is taken by GET /things; named "listThings_2"',
        'DELETE /things/{id}: "delete thing/{id}" is not a tool name; named "delete_thing_id"',
        'PUT /things/{id}: "put_/things/{id}" is not a tool name; named "put_things_id"',
      ]),
    );
  });

  it('says what is wrong with a document that is not OpenAPI 3', async () => {
    expect((await failure({ openapi: write({ swagger: '2.0', paths: {} }) })).message).toMatch(
      /is Swagger 2\.0; mcpx reads OpenAPI 3\.x/,
    );
    expect((await failure({ openapi: write('openapi: [unclosed', 'yaml') })).message).toMatch(/is neither JSON nor YAML/);
    expect((await failure({ openapi: join(dir, 'missing.yaml') })).message).toMatch(
      /cannot read the OpenAPI document .*missing\.yaml/,
    );
    expect((await failure({ openapi: write({ openapi: '3.1.0', info: {}, paths: {} }) })).message).toMatch(
      /names no absolute server URL; set "baseUrl"/,
    );
  });

  it('reaches the caller as the adapter error, not as a connection failure', async () => {
    const mcpx = await createMcpx({
      config: { mcpServers: { api: { openapi: write({ swagger: '2.0' }) } } } as never,
      env: {},
      eraCache: createMemoryEraCache(),
    });
    try {
      const error = await mcpx.listTools('api').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpxError);
      expect((error as McpxError).code).toBe('ADAPTER_INVALID');
      expect((error as McpxError).message).toMatch(/^adapter "api": .* is Swagger 2\.0/);
    } finally {
      await mcpx.close();
    }
  });
});
