#!/usr/bin/env node
/**
 * A small HTTP API with no MCP server: notes you can list, read, create and delete, described by an OpenAPI 3.1
 * document at /openapi.json. It counts every request it receives (GET /_requests), so a test can prove a write was
 * sent exactly once, or never. Used by the adapter tests, the long-running approval example and the bench.
 *
 *   node examples/servers/notes-api.mjs [--port 0]    # prints its base URL, e.g. http://127.0.0.1:41235
 */
import { createServer } from 'node:http';

const NOTE = {
  type: 'object',
  properties: { id: { type: 'integer' }, title: { type: 'string' }, body: { type: 'string' } },
  required: ['id', 'title'],
};

export const NOTES_OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'Notes', version: '1.0.0' },
  paths: {
    '/notes': {
      get: {
        operationId: 'list_notes',
        summary: 'List notes, newest first.',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } }],
        responses: {
          200: {
            description: 'the notes',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { notes: { type: 'array', items: { $ref: '#/components/schemas/Note' } } },
                  required: ['notes'],
                },
              },
            },
          },
        },
      },
      post: {
        operationId: 'create_note',
        summary: 'Create a note.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { title: { type: 'string', minLength: 1 }, body: { type: 'string' } },
                required: ['title'],
              },
            },
          },
        },
        responses: {
          201: { description: 'created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } },
        },
      },
    },
    '/notes/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        operationId: 'get_note',
        summary: 'One note.',
        responses: {
          200: { description: 'the note', content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } },
        },
      },
      delete: { operationId: 'delete_note', summary: 'Delete a note.', responses: { 204: { description: 'deleted' } } },
    },
  },
  components: { schemas: { Note: NOTE } },
};

/** Starts the API on a loopback port; `requests` counts what was received, by "METHOD /path". */
export async function startNotesApi({ port = 0, host = '127.0.0.1' } = {}) {
  const notes = new Map();
  let next = 1;
  const requests = {};
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const send = (status, body) => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    if (url.pathname === '/_requests') return send(200, requests);
    if (url.pathname === '/openapi.json') return send(200, NOTES_OPENAPI);
    const key = `${req.method} ${url.pathname.replace(/^\/notes\/[^/]+$/, '/notes/{id}')}`;
    requests[key] = (requests[key] ?? 0) + 1;
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const id = /^\/notes\/(\d+)$/.exec(url.pathname)?.[1];
      if (url.pathname === '/notes' && req.method === 'GET') {
        const limit = Number(url.searchParams.get('limit') ?? 100);
        return send(200, { notes: [...notes.values()].reverse().slice(0, limit) });
      }
      if (url.pathname === '/notes' && req.method === 'POST') {
        let body;
        try {
          body = JSON.parse(raw);
        } catch {
          return send(400, { error: 'the body is not JSON' });
        }
        if (typeof body?.title !== 'string' || !body.title) return send(422, { error: 'title is required' });
        const note = { id: next++, title: body.title, ...(typeof body.body === 'string' ? { body: body.body } : {}) };
        notes.set(note.id, note);
        return send(201, note);
      }
      if (id && req.method === 'GET')
        return notes.has(Number(id)) ? send(200, notes.get(Number(id))) : send(404, { error: `no note ${id}` });
      if (id && req.method === 'DELETE') return notes.delete(Number(id)) ? send(204) : send(404, { error: `no note ${id}` });
      send(404, { error: `no route ${req.method} ${url.pathname}` });
    });
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const url = `http://${host}:${server.address().port}`;
  return { url, requests, notes, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const portFlag = process.argv.indexOf('--port');
  const api = await startNotesApi({ port: portFlag > 0 ? Number(process.argv[portFlag + 1]) : 0 });
  process.stdout.write(`${api.url}\n`);
  process.on('SIGTERM', () => api.close().then(() => process.exit(0)));
}
