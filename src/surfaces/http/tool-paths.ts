/**
 * One OpenAPI path per configured tool (`POST /v1/call/<server>/<tool>`, beside the generic templated route, which
 * serves it): the tool's input schema as the request body, its output schema as the result's `structuredContent`
 * in the 200 response, and the 202 of a call that stopped at a question. A client generated from the document is
 * typed per tool. Tool schemas are JSON Schema 2020-12, as OpenAPI 3.1 takes them; their local `$defs` move to
 * components (a `$ref` in a document resolves against the document's root, not the tool's schema).
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { ToolCatalog } from './app.js';

type JsonObject = Record<string, unknown>;

export interface ToolPaths {
  paths: Record<string, JsonObject>;
  schemas: Record<string, JsonObject>;
  /** Servers whose tools could not be listed (not started, failed): named in the document, never fatal. */
  skipped: Array<{ server: string; reason: string }>;
}

const ident = (text: string): string => text.replace(/[^A-Za-z0-9_]/g, '_');

/** Lists every server's tools over the catalog and builds their paths and the schemas they refer to. */
export async function toolPaths(catalog: ToolCatalog): Promise<ToolPaths> {
  const out: ToolPaths = { paths: {}, schemas: {}, skipped: [] };
  const operationIds = new Set<string>();
  for (const server of await catalog.serverNames()) {
    let tools: Tool[];
    try {
      tools = await catalog.listTools(server);
    } catch (error) {
      out.skipped.push({ server, reason: (error as Error).message });
      continue;
    }
    for (const tool of tools) {
      let operationId = `call_${ident(server)}_${ident(tool.name)}`;
      // Names that differ only in characters an identifier cannot hold get a number rather than colliding.
      for (let n = 2; operationIds.has(operationId); n++) operationId = `call_${ident(server)}_${ident(tool.name)}_${n}`;
      operationIds.add(operationId);
      const input = hoist(tool.inputSchema as JsonObject, operationId, out.schemas);
      const output = tool.outputSchema ? hoist(tool.outputSchema as JsonObject, `${operationId}_output`, out.schemas) : undefined;
      out.paths[`/v1/call/${encodeURIComponent(server)}/${encodeURIComponent(tool.name)}`] = {
        post: {
          operationId,
          tags: [server],
          summary: tool.title ?? tool.annotations?.title ?? tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          requestBody: { required: false, content: { 'application/json': { schema: input } } },
          responses: {
            200: {
              description: 'The call completed (a tool error is complete with result.isError).',
              content: { 'application/json': { schema: completeSchema(output) } },
            },
            202: {
              description: 'The server asked a question; answer it at Location, collect the result at /v1/tasks/{task}.',
              headers: {
                Location: { schema: { type: 'string' }, description: '/v1/elicit/{id} of the first question' },
                'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the first question expires' },
              },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/InputRequired' } } },
            },
            default: {
              description: 'An error: {error: {code, message, data?}}',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
            },
          },
        },
      };
    }
  }
  return out;
}

function completeSchema(output: JsonObject | undefined): JsonObject {
  return {
    type: 'object',
    required: ['status', 'callId', 'task', 'result'],
    properties: {
      status: { type: 'string', const: 'complete' },
      callId: { type: 'string' },
      task: { type: 'string' },
      result: {
        type: 'object',
        required: ['content'],
        properties: {
          content: { type: 'array', items: { type: 'object' } },
          ...(output ? { structuredContent: output } : {}),
          isError: { type: 'boolean' },
        },
      },
    },
  };
}

/** A copy of a tool schema whose `$defs`/`definitions` live in components under `<prefix>_<name>`, refs rewritten. */
function hoist(schema: JsonObject, prefix: string, components: Record<string, JsonObject>): JsonObject {
  const defs = { ...((schema.$defs as JsonObject | undefined) ?? {}), ...((schema.definitions as JsonObject | undefined) ?? {}) };
  const rename = (ref: string): string => {
    const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
    if (match)
      return `#/components/schemas/${prefix}_${ident(decodeURIComponent(match[1]!.replace(/~1/g, '/').replace(/~0/g, '~')))}`;
    // A ref to the schema's own root becomes the component holding it.
    if (ref === '#') return `#/components/schemas/${prefix}`;
    return ref;
  };
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const copy: JsonObject = {};
    for (const [key, inner] of Object.entries(value as JsonObject)) {
      if (key === '$schema' || key === '$defs' || key === 'definitions') continue;
      copy[key] = key === '$ref' && typeof inner === 'string' ? rename(inner) : rewrite(inner);
    }
    return copy;
  };
  for (const [name, def] of Object.entries(defs)) components[`${prefix}_${ident(name)}`] = rewrite(def) as JsonObject;
  const body = rewrite(schema) as JsonObject;
  if (JSON.stringify(body).includes(`"#/components/schemas/${prefix}"`)) {
    components[prefix] = body;
    return { $ref: `#/components/schemas/${prefix}` };
  }
  return body;
}
