/**
 * The modern HTTP leg's fast path for the request an agent sends most: a 2026-07-28 `tools/call` of an upstream
 * tool (a first call, or a retry answering mcpx's own questions) with nothing else asked of it (no progress token,
 * log level or other `_meta`). The SDK's modern handler builds a server and a transport per request and validates
 * the request and result with zod: about 0.7 ms of CPU per call, most of what serve added to a plain HTTP call.
 * Here the same checks run on the exported pieces (classifyInboundRequest for the era, the envelope and the
 * header cross-check; the spec's result schema) and the call goes to calls.ts, as the SDK's path does.
 * Anything this path is not sure of (a header, a key, a state it cannot verify, a relayed call, a tool it does not
 * know) is left to the SDK's path before anything happens, so every refusal is still the SDK's own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
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
import { createCalls, type CallContext } from './calls.js';
import type { ServeCore } from './core.js';
import { isObject } from './json-values.js';
import { wantsRelay } from './relay.js';
import type { RequestStateSeal } from './request-state.js';

const MODERN = '2026-07-28';
const METHOD = 'tools/call';
const BODY_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta', 'requestState', 'inputResponses']);
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);
/** The SDK's in-band refusal that the spec answers with 400 (a missing client capability); every other is 200. */
const MISSING_CAPABILITY = -32021;

const onlyKeys = (value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean =>
  Object.keys(value).every((key) => allowed.has(key));

/** The request, when it is a plain modern tools/call whose every part this path checks as the SDK would. */
interface PlainCall {
  id: string | number;
  name: string;
  args: Record<string, unknown>;
  capabilities: ClientCapabilities;
  requestState: string | undefined;
  inputResponses: Record<string, unknown> | undefined;
}

function plainCall(req: IncomingMessage, body: unknown): PlainCall | undefined {
  if (req.method !== 'POST' || !isJsonContentType(req.headers['content-type'] ?? null)) return undefined;
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
  if (req.headers['mcp-protocol-version'] !== MODERN || req.headers['mcp-method'] !== METHOD || req.headers['mcp-name'] !== name)
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

export interface FastToolCalls {
  /** True: the request was answered here. False: nothing was done, and the SDK's path serves it. */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown, session: string, signal: AbortSignal): Promise<boolean>;
}

export function createFastToolCalls(core: ServeCore, seal: RequestStateSeal, version: string): FastToolCalls {
  const serverInfo = { name: 'mcpx', version };

  const write = (res: ServerResponse, status: number, message: Record<string, unknown>): void => {
    const text = Buffer.from(JSON.stringify(message));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(text.length) }).end(text);
  };

  return {
    async serve(req, res, body, session, signal) {
      const call = plainCall(req, body);
      if (!call || wantsRelay(call.capabilities)) return false;
      // mcpx's own tools are never in the catalogue (their names are reserved): the SDK's path serves them.
      const ref = (await core.catalog()).byName.get(call.name);
      if (!ref) return false;
      let state: unknown;
      if (call.requestState !== undefined) {
        try {
          state = await seal.verify(call.requestState, METHOD);
        } catch {
          return false;
        }
        if (!isObject(state) || !('task' in state)) return false;
      }
      const context: CallContext = {
        signal,
        capabilities: call.capabilities,
        state,
        inputResponses: call.inputResponses,
        notifications: undefined,
      };
      const calls = createCalls(core, seal, { era: 'modern', session });
      let result: Record<string, unknown>;
      try {
        result = encode((await calls.run('tool', call.name, ref, call.args, context)) as Record<string, unknown>);
      } catch (error) {
        if (!signal.aborted) write(res, statusOf(error), { jsonrpc: '2.0', id: call.id, error: errorOf(error) });
        return true;
      }
      if (!signal.aborted) write(res, 200, { result: withServerInfo(result, serverInfo), jsonrpc: '2.0', id: call.id });
      return true;
    },
  };
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
