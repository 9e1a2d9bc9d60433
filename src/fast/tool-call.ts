/**
 * The checks of serve's modern HTTP fast path (surfaces/mcp-server/fast-call.ts): whether a request is a plain
 * 2026-07-28 `tools/call` every part of which is checked here as the SDK's handler would check it (on the SDK's
 * exported classifyInboundRequest and spec schemas), and its result or error encoded as the SDK's server encodes it.
 * Anything not surely plain is left to the SDK's path, so every refusal is still the SDK's own.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  classifyInboundRequest,
  isInputRequiredResult,
  isJsonContentType,
  isSpecType,
  specTypeSchemas,
  type ClientCapabilities,
} from '@modelcontextprotocol/server';

const MODERN = '2026-07-28';
const METHOD = 'tools/call';
const BODY_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta', 'requestState', 'inputResponses']);
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
/** The SDK's in-band refusal that the spec answers with 400 (a missing client capability); every other is 200. */
const MISSING_CAPABILITY = -32021;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const onlyKeys = (value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean =>
  Object.keys(value).every((key) => allowed.has(key));

/** The parts of an HTTP request the checks read (node's IncomingMessage has them). */
export interface RequestHead {
  method?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** The request, when it is a plain modern tools/call whose every part this path checks as the SDK would. */
export interface PlainToolCall {
  id: string | number;
  name: string;
  args: Record<string, unknown>;
  capabilities: ClientCapabilities;
  requestState: string | undefined;
  inputResponses: Record<string, unknown> | undefined;
}

export function plainToolCall(req: RequestHead, body: unknown): PlainToolCall | undefined {
  if (req.method !== 'POST' || !isJsonContentType(headerOf(req, 'content-type'))) return undefined;
  if (!isObject(body) || !onlyKeys(body, BODY_KEYS) || body.jsonrpc !== '2.0' || body.method !== METHOD) return undefined;
  const { id, params } = body;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  if (!isObject(params) || !onlyKeys(params, PARAM_KEYS) || typeof params.name !== 'string') return undefined;
  const { name, _meta: meta, requestState, inputResponses } = params;
  const args = params.arguments ?? {};
  if (!isObject(args) || !isObject(meta) || !onlyKeys(meta, ENVELOPE_KEYS)) return undefined;
  if (requestState !== undefined && typeof requestState !== 'string') return undefined;
  if (inputResponses !== undefined && !plainResponses(inputResponses)) return undefined;
  // Present and equal to the body, as sent by every SDK client: anything else (absent, encoded) is the SDK's to judge.
  if (
    headerOf(req, 'mcp-protocol-version') !== MODERN ||
    headerOf(req, 'mcp-method') !== METHOD ||
    headerOf(req, 'mcp-name') !== name
  )
    return undefined;
  if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN || !modernEnvelope(meta, body)) return undefined;
  const capabilities = (meta[CLIENT_CAPABILITIES_META_KEY] ?? {}) as ClientCapabilities;
  return {
    id,
    name,
    args,
    capabilities,
    requestState,
    inputResponses: inputResponses as Record<string, unknown> | undefined,
  };
}

/** Envelopes the SDK's classifier found valid, by their JSON: a client sends the same one with every request. */
const validEnvelopes = new Set<string>();
const ENVELOPES_KEPT = 64;

/**
 * Whether the SDK's classifier serves this request as modern (its envelope valid). Everything else it reads is pinned
 * before this (method, id, params' keys, the headers equal to the body), so its verdict follows from the envelope.
 */
function modernEnvelope(meta: Record<string, unknown>, body: Record<string, unknown>): boolean {
  const key = JSON.stringify(meta);
  if (validEnvelopes.has(key)) return true;
  const params = body.params as { name: string };
  const headers = { protocolVersionHeader: MODERN, mcpMethodHeader: METHOD, mcpNameHeader: params.name };
  const outcome = classifyInboundRequest({ httpMethod: 'POST', ...headers, body });
  if (outcome.kind !== 'modern' || outcome.messageKind !== 'request' || outcome.classification.revision !== MODERN) return false;
  if (validEnvelopes.size >= ENVELOPES_KEPT) validEnvelopes.clear();
  validEnvelopes.add(key);
  return true;
}

/** Answers to elicitations, each as the spec shapes it; anything else (a wrapped or malformed entry) is the SDK's. */
function plainResponses(responses: unknown): boolean {
  if (!isObject(responses)) return false;
  return Object.values(responses).every((entry) => isObject(entry) && !('method' in entry) && isSpecType.ElicitResult(entry));
}

/** As the SDK's server sends a tools/call result on 2026-07-28: checked against the spec's schema, `resultType` stamped. */
function encode(result: Record<string, unknown>): Record<string, unknown> {
  if (isInputRequiredResult(result)) return result;
  const checked = specTypeSchemas.CallToolResult['~standard'].validate(withContent(result));
  if (checked.issues) {
    const issues = checked.issues.map((issue) => issue.message).join('; ');
    throw Object.assign(new Error(`Invalid tools/call result: ${issues}`), { code: -32602 });
  }
  const valid = checked.value as Record<string, unknown>;
  return valid.resultType === undefined ? { ...valid, resultType: 'complete' } : valid;
}

/** A result with no content and none of a task's or a round's fields has empty content (the SDK's normalisation). */
function withContent(result: Record<string, unknown>): Record<string, unknown> {
  if (result.content !== undefined || 'task' in result || 'inputRequests' in result || 'requestState' in result) return result;
  return { ...result, content: [] };
}

/** The server's identity in the result's `_meta`, unless the result names one (the SDK's stamp). */
function withServerInfo(result: Record<string, unknown>, serverInfo: { name: string; version: string }) {
  const meta = result._meta;
  if (meta === undefined) return { ...result, _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (!isObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return result;
  return { ...result, _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
}

/** A failed call as the SDK's server answers it: the JSON-RPC error and its HTTP status. */
export function toolCallError(error: unknown): { status: number; error: Record<string, unknown> } {
  return { status: statusOf(error), error: errorOf(error) };
}

function errorOf(error: unknown): Record<string, unknown> {
  const thrown = error as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(thrown?.code) ? (thrown.code as number) : -32603;
  return {
    // The 2026-07-28 wire has no -32002 (resource not found): it is invalid params there.
    code: code === -32002 ? -32602 : code,
    message: typeof thrown?.message === 'string' ? thrown.message : 'Internal error',
    ...(thrown?.data !== undefined ? { data: thrown.data } : {}),
  };
}

const statusOf = (error: unknown): number => ((error as { code?: unknown })?.code === MISSING_CAPABILITY ? 400 : 200);

/** A call's result as the SDK's server answers it on 2026-07-28; throws (an error for toolCallError) when it is invalid. */
export function toolCallResult(result: Record<string, unknown>, serverInfo: { name: string; version: string }) {
  return withServerInfo(encode(result), serverInfo);
}

/** A header's one value (node joins repeated ones into an array only for a few names). */
function headerOf(req: RequestHead, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}
