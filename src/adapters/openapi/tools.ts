/**
 * OpenAPI operations as tools. Each allowed operation becomes a tool named from its `operationId` (or method and
 * path), with an input schema from its path, query and header parameters and its JSON request body (under `body`),
 * and an output schema from its 2xx JSON response. A method listed in `confirm` asks before it is sent.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { Ajv, type ValidateFunction } from 'ajv';
import { READ_METHODS, type HttpMethod, type OpenApiAdapterConfig } from '../../config/adapters.js';
import type { AdapterContext } from '../connectors.js';
import { createNamer } from '../names.js';
import { failure, type AdapterTool, type AdapterToolSet } from '../tool-set.js';
import { invalid, readBody, readOpenApi } from './document.js';
import { createInliner, type Inliner } from './schema.js';

/** Operations past this many are not served (a warning says so). */
export const MAX_OPERATIONS = 2_000;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const METHODS: HttpMethod[] = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH'];

interface Param {
  /** The property of the tool's input that carries it. */
  property: string;
  name: string;
  in: 'path' | 'query' | 'header';
}

interface Operation {
  method: HttpMethod;
  path: string;
  params: Param[];
  /** The input property that carries the request body, and how it is sent. */
  body?: { property: string; contentType: string };
  /** The response body is wrapped as `{ body }` (a non-object schema), or is the structured content itself. */
  output?: { wrap: boolean; schema: Record<string, unknown> };
}

export async function openApiTools(
  adapter: string,
  config: OpenApiAdapterConfig,
  context: AdapterContext,
): Promise<AdapterToolSet> {
  const { doc, location } = await readOpenApi({
    source: config.openapi,
    baseDir: context.baseDir,
    allowRemoteRefs: config.allowRemoteRefs ?? false,
    adapter,
    ...(config.headers ? { headers: config.headers } : {}),
    ...(context.fetch ? { fetch: context.fetch } : {}),
  });
  const warnings: string[] = [];
  const warn = (message: string): void => {
    if (warnings.length < 200) warnings.push(message);
  };
  const baseUrl = baseUrlOf(adapter, config, doc, location);
  const allowed = new Set<string>((config.methods ?? ['GET']).map((m) => m.toUpperCase()));
  const confirmed = new Set<string>(
    (config.confirm ?? METHODS.filter((m) => !READ_METHODS.includes(m))).map((m) => m.toUpperCase()),
  );
  const inliner = createInliner(doc, warn);
  const nameFor = createNamer(warn);
  const call = createCaller(config, baseUrl, context.fetch ?? fetch);

  const tools: AdapterTool[] = [];
  let count = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, unknown>)) {
    const pathItem = inliner.deref<Record<string, unknown>>(item);
    if (!pathItem) continue;
    for (const method of METHODS) {
      const op = pathItem[method.toLowerCase()];
      if (!op || typeof op !== 'object') continue;
      if (!allowed.has('ALL') && !allowed.has(method)) continue;
      if (++count > MAX_OPERATIONS) continue;
      const what = `${method} ${path}`;
      const operation = op as Record<string, unknown>;
      const name = nameFor(
        typeof operation.operationId === 'string' && operation.operationId
          ? operation.operationId
          : `${method.toLowerCase()}_${path}`,
        what,
      );
      const built = buildOperation(method, path, pathItem, operation, inliner, warn);
      if (!built) continue;
      const asks = confirmed.has('ALL') || confirmed.has(method);
      const definition: Tool = {
        name,
        description: describe(operation, what, asks),
        inputSchema: built.inputSchema as Tool['inputSchema'],
        ...(built.operation.output ? { outputSchema: built.operation.output.schema as Tool['outputSchema'] } : {}),
        annotations: {
          readOnlyHint: READ_METHODS.includes(method),
          destructiveHint: method === 'DELETE',
          idempotentHint: method !== 'POST' && method !== 'PATCH',
          openWorldHint: true,
        },
      };
      tools.push({
        definition,
        confirmation: (args) =>
          asks ? `${method} ${requestTarget(built.operation, args)}${bodyText(built.operation, args)}: proceed?` : undefined,
        run: (args, signal) => call(built.operation, args, signal),
      });
    }
  }
  if (count > MAX_OPERATIONS)
    warn(`the document has ${count} operations allowed by "methods"; only the first ${MAX_OPERATIONS} are tools`);
  if (!tools.length) warn(`no operation is served: none matches "methods": ${JSON.stringify(config.methods ?? ['GET'])}`);
  return { tools, warnings };
}

function baseUrlOf(adapter: string, config: OpenApiAdapterConfig, doc: Record<string, unknown>, location: URL): string {
  if (config.baseUrl) return config.baseUrl.replace(/\/+$/, '');
  const servers = Array.isArray(doc.servers) ? (doc.servers as Array<Record<string, unknown>>) : [];
  const first = servers[0];
  if (first && typeof first.url === 'string') {
    const variables = (first.variables ?? {}) as Record<string, { default?: unknown }>;
    const url = first.url.replace(/\{([^}]+)\}/g, (whole, name: string) =>
      typeof variables[name]?.default === 'string' ? (variables[name].default as string) : whole,
    );
    if (/^https?:\/\//i.test(url)) return url.replace(/\/+$/, '');
    if (location.protocol !== 'file:') return new URL(url, location).href.replace(/\/+$/, '');
  }
  if (location.protocol !== 'file:') return location.origin;
  throw invalid(
    adapter,
    `the document names no absolute server URL; set "baseUrl" in the entry (e.g. "https://api.example.com")`,
  );
}

function buildOperation(
  method: HttpMethod,
  path: string,
  pathItem: Record<string, unknown>,
  op: Record<string, unknown>,
  inliner: Inliner,
  warn: (m: string) => void,
) {
  const what = `${method} ${path}`;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const params: Param[] = [];
  // Operation parameters override path-item ones with the same name and location.
  const merged = new Map<string, Record<string, unknown>>();
  for (const list of [pathItem.parameters, op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const param = inliner.deref<Record<string, unknown>>(raw);
      if (param && typeof param.name === 'string' && typeof param.in === 'string') merged.set(`${param.in}:${param.name}`, param);
    }
  }
  for (const param of merged.values()) {
    const location = param.in as string;
    if (location !== 'path' && location !== 'query' && location !== 'header') {
      warn(`${what}: ${location} parameter "${String(param.name)}" is not supported; left out`);
      continue;
    }
    const name = param.name as string;
    const property = Object.hasOwn(properties, name) ? `${name}_${location}` : name;
    if (property !== name)
      warn(`${what}: parameter "${name}" appears in more than one place; the ${location} one is "${property}"`);
    const schema = inliner.inline(param.schema ?? contentSchema(param.content), `${what} parameter ${name}`);
    properties[property] =
      typeof param.description === 'string' && !schema.description ? { ...schema, description: param.description } : schema;
    if (param.required === true || location === 'path') required.push(property);
    params.push({ property, name, in: location });
  }
  const operation: Operation = { method, path, params };
  const requestBody = inliner.deref<Record<string, unknown>>(op.requestBody);
  if (requestBody) {
    const content = (requestBody.content ?? {}) as Record<string, { schema?: unknown }>;
    const contentType =
      Object.keys(content).find(isJson) ?? Object.keys(content).find((t) => t === 'application/x-www-form-urlencoded');
    if (contentType) {
      const property = Object.hasOwn(properties, 'body') ? 'requestBody' : 'body';
      const schema = inliner.inline(content[contentType]?.schema ?? {}, `${what} request body`);
      properties[property] =
        typeof requestBody.description === 'string' && !schema.description
          ? { ...schema, description: requestBody.description }
          : schema;
      if (requestBody.required === true) required.push(property);
      operation.body = { property, contentType };
    } else if (Object.keys(content).length) {
      warn(`${what}: request bodies of type ${Object.keys(content).join(', ')} are not supported; the operation is left out`);
      return undefined;
    }
  }
  const output = outputOf(op, inliner, what);
  if (output) operation.output = output;
  return {
    operation,
    inputSchema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
  };
}

function outputOf(op: Record<string, unknown>, inliner: Inliner, what: string): Operation['output'] {
  const responses = (op.responses ?? {}) as Record<string, unknown>;
  const codes = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort();
  const withSchema = codes
    .map((code) => inliner.deref<Record<string, unknown>>(responses[code]))
    .map((response) => contentSchema(response?.content))
    .filter((schema) => schema !== undefined);
  // Several 2xx bodies that differ cannot be promised as one shape: no output schema then.
  if (withSchema.length !== 1 || codes.length !== 1) return undefined;
  const schema = inliner.inline(withSchema[0], `${what} response`);
  const isObject = schema.type === 'object' || (schema.type === undefined && typeof schema.properties === 'object');
  return isObject
    ? { wrap: false, schema }
    : { wrap: true, schema: { type: 'object', properties: { body: schema }, required: ['body'] } };
}

function contentSchema(content: unknown): unknown {
  if (!content || typeof content !== 'object') return undefined;
  const type = Object.keys(content).find(isJson);
  return type ? ((content as Record<string, { schema?: unknown }>)[type]?.schema ?? undefined) : undefined;
}

function isJson(type: string): boolean {
  return /^application\/(?:[\w.-]+\+)?json\b/i.test(type);
}

function describe(op: Record<string, unknown>, what: string, asks: boolean): string {
  const text = [op.summary, op.description].filter((t): t is string => typeof t === 'string' && t.trim() !== '').join('\n\n');
  const note = `${op.deprecated === true ? ' (deprecated)' : ''}${asks ? ' Asks for confirmation before it is sent.' : ''}`;
  return `${text ? `${text.slice(0, 1800)}\n\n` : ''}${what}.${note}`;
}

/** The path with its parameters filled in, and the query string. */
function requestTarget(op: Operation, args: Record<string, unknown>): string {
  let path = op.path;
  const query = new URLSearchParams();
  for (const param of op.params) {
    const value = args[param.property];
    if (value === undefined) continue;
    if (param.in === 'path') path = path.split(`{${param.name}}`).join(encodeURIComponent(scalar(value)));
    if (param.in === 'query') for (const item of Array.isArray(value) ? value : [value]) query.append(param.name, scalar(item));
  }
  const search = query.toString();
  return search ? `${path}?${search}` : path;
}

function bodyText(op: Operation, args: Record<string, unknown>): string {
  if (!op.body || args[op.body.property] === undefined) return '';
  const text = JSON.stringify(args[op.body.property]);
  return ` with ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`;
}

function scalar(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function createCaller(config: OpenApiAdapterConfig, baseUrl: string, fetchImpl: typeof fetch) {
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const outputChecks = new WeakMap<object, ValidateFunction | null>();
  const outputCheck = (schema: Record<string, unknown>): ValidateFunction | null => {
    if (!outputChecks.has(schema)) {
      let check: ValidateFunction | null = null;
      try {
        check = ajv.compile(schema);
      } catch {
        // A schema ajv cannot compile is not checked here; the client checks structured content itself.
      }
      outputChecks.set(schema, check);
    }
    return outputChecks.get(schema) ?? null;
  };

  return async (op: Operation, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> => {
    const target = requestTarget(op, args);
    const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5', ...(config.headers ?? {}) };
    for (const param of op.params)
      if (param.in === 'header' && args[param.property] !== undefined) headers[param.name] = scalar(args[param.property]);
    let body: string | undefined;
    if (op.body && args[op.body.property] !== undefined) {
      const value = args[op.body.property];
      headers['content-type'] = op.body.contentType;
      body = isJson(op.body.contentType)
        ? JSON.stringify(value)
        : new URLSearchParams(
            Object.entries((value ?? {}) as Record<string, unknown>).map(([k, v]): [string, string] => [k, scalar(v)]),
          ).toString();
    }
    const what = `${op.method} ${target}`;
    let response: Response;
    try {
      response = await fetchImpl(`${baseUrl}${target}`, {
        method: op.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        redirect: 'follow',
      });
    } catch (error) {
      const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (error as Error).message;
      return failure(`${what} failed: ${reason}`);
    }
    const { text, truncated } = await readBody(response, maxBytes);
    if (truncated) return failure(`${what}: the response is larger than ${maxBytes} bytes (maxResponseBytes); not read`);
    if (!response.ok)
      return failure(
        `${what} → HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${text ? `: ${text.slice(0, 2000)}` : ''}`,
      );
    const json = isJson(response.headers.get('content-type') ?? '') ? parseJson(text) : undefined;
    if (!op.output || json === undefined)
      return { content: [{ type: 'text', text: text || `${what} → HTTP ${response.status}` }] };
    const structured = op.output.wrap ? { body: json.value } : json.value;
    const check = outputCheck(op.output.schema);
    if (check && !check(structured)) {
      const problems = (check.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`);
      return failure(
        `${what}: the response does not match the document's schema (${problems.join('; ')}): ${text.slice(0, 2000)}`,
      );
    }
    return { content: [{ type: 'text', text }], structuredContent: structured as Record<string, unknown> };
  };
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
