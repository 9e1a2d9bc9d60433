/**
 * A remote OpenAPI document cannot read local files or exhaust mcpx (issue #33, item 5). A loopback HTTP server
 * serves hostile documents to the OpenAPI adapter with `allowRemoteRefs: true`: a `$ref` to a local file holding a
 * marker (as mcpx's own secrets file would), to /dev/zero, and to a body that never ends. Each is refused with an
 * error naming the ref and the limit; the marker is in no tool schema, and the endless body is cut off.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiTools } from '../../src/adapters/openapi/tools.js';
import { MAX_REF_BYTES } from '../../src/adapters/openapi/ref-resolvers.js';
import { McpxError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-refs-'));
const marker = `MARKER-${process.pid}-${Date.now()}`;
const secretFile = join(dir, 'secrets.json');
writeFileSync(secretFile, JSON.stringify({ S: { type: 'object', description: marker } }));
const context = { baseDir: dir, env: {} };

function docWith(ref: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'hostile', version: '1' },
    servers: [{ url: 'http://127.0.0.1:9' }],
    paths: {
      '/x': {
        get: {
          operationId: 'x',
          responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } } },
        },
      },
    },
  };
}

let server: Server;
let origin: string;
/** Bytes the endless body had written when mcpx stopped reading. */
let endlessWritten = 0;
const endlessClosed: Array<() => void> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const docs: Record<string, Record<string, unknown>> = {
      '/file-ref.json': docWith(`${pathToFileURL(secretFile).href}#/S`),
      '/dev-zero.json': docWith('file:///dev/zero'),
      '/endless-ref.json': docWith('/endless.json'),
    };
    const doc = docs[req.url ?? ''];
    if (doc) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
    if (req.url === '/endless.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (res.write(chunk)) endlessWritten += chunk.length;
        endlessWritten += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', () => endlessClosed.splice(0).forEach((done) => done()));
      return pump();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

async function refusal(path: string): Promise<McpxError> {
  const outcome = await openApiTools('api', { openapi: `${origin}${path}`, allowRemoteRefs: true }, context).then(
    (set) => set,
    (error: unknown) => error,
  );
  // Had it been followed, the marker would be in the tool's output schema: say so in the failure.
  expect(JSON.stringify(outcome)).not.toContain(marker);
  expect(outcome).toBeInstanceOf(McpxError);
  expect((outcome as McpxError).code).toBe('ADAPTER_INVALID');
  return outcome as McpxError;
}

describe('$refs of a document fetched from a URL', () => {
  it('never reads a local file, and says which ref and what to do', async () => {
    const error = await refusal('/file-ref.json');
    expect(error.message).toContain(`$ref "${pathToFileURL(secretFile).href}" was not followed`);
    expect(error.message).toMatch(/a document fetched from a URL may not read local files; publish the referenced file/);
    expect(error.message).not.toContain(marker);
  });

  it('never reads /dev/zero', async () => {
    const error = await refusal('/dev-zero.json');
    expect(error.message).toContain(
      '$ref "file:///dev/zero" was not followed: a document fetched from a URL may not read local files',
    );
  });

  it('stops reading a body that never ends at the documented limit', async () => {
    const closed = new Promise<void>((done) => endlessClosed.push(done));
    const error = await refusal('/endless-ref.json');
    expect(error.message).toContain('$ref "/endless.json" was not followed');
    expect(error.message).toContain(`more than ${MAX_REF_BYTES / 1024 / 1024}.0 MiB in all`);
    // mcpx hung up: the server could write the limit and what the sockets buffer, not more.
    await closed;
    expect(endlessWritten).toBeGreaterThan(MAX_REF_BYTES);
    expect(endlessWritten).toBeLessThan(MAX_REF_BYTES + 16 * 1024 * 1024);
  });
});

describe('$refs of a local document', () => {
  it('still read a neighbouring file', async () => {
    const path = join(dir, 'local.json');
    writeFileSync(path, JSON.stringify(docWith('./secrets.json#/S')));
    const set = await openApiTools('api', { openapi: path, allowRemoteRefs: true }, context);
    expect(set.tools[0]!.definition.outputSchema).toMatchObject({ description: marker });
  });

  it('refuse /dev/zero and anything else that is not a regular file', async () => {
    const path = join(dir, 'zero.json');
    writeFileSync(path, JSON.stringify(docWith('/dev/zero')));
    const error = await openApiTools('api', { openapi: path, allowRemoteRefs: true }, context).then(
      () => undefined,
      (e: unknown) => e as McpxError,
    );
    expect(error).toBeInstanceOf(McpxError);
    expect(error!.message).toContain('$ref "/dev/zero" was not followed: /dev/zero is not a regular file; only files are read');
  });
});
