/**
 * Streamable HTTP without sign-in, where a plain modern request costs less CPU: the SDK's `send` runs zod checks
 * on every outbound message (is it `initialize`? is it a request?) and parses each JSON answer against the
 * four-way JSON-RPC message union, which builds and throws away two failures per result. A single modern
 * `tools/call` (mcpx's forwarded calls) skips those: its headers are built as the SDK builds them, and a 200
 * `application/json` answer is checked against the result-response member of that same union (the same
 * schema object, so the same value). Any other answer (an error status, an event stream, a redirect, 202) is
 * handed back to the SDK's own `send`, whose fetch is given that answer instead of sending the request again:
 * from there on it runs exactly as it always did.
 *
 * `sendDirect` goes one step further for modern-call.ts: the call is posted here under an id of its own, past the
 * SDK's request layer (its id, timers and handler maps, the send's checks, the decode), and a complete result the
 * spec's schema accepts is returned as the SDK would return it. Any other answer (a question, an error, an event
 * stream, an error status) is handed off: the SDK's own request for the call is then sent with the hand-off's
 * header, and `send` gives it the answer already received instead of posting again, with the direct id renamed to
 * the SDK's in every message read from it. So the SDK reads those answers exactly as if it had sent the request.
 */
import {
  PROTOCOL_VERSION_META_KEY,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  isJsonContentType,
  parseJSONRPCMessage,
  specTypeSchemas,
  type Client,
  type FetchLike,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { JsonAnswer, headerRecord, type NodeFetch } from './node-fetch.js';
import type { StreamLinks } from './stream-links.js';

type Options = NonNullable<ConstructorParameters<typeof StreamableHTTPClientTransport>[1]>;
type SendOptions = Parameters<StreamableHTTPClientTransport['send']>[1];
/**
 * Posts a plain request's body and gives its answer: a 2xx JSON answer (not 202) parsed, any other as a Response
 * (node-fetch.ts's postJson, with what the transport's `fetch` would do to a fetched answer).
 */
export type PostJson = (
  url: URL,
  headers: Record<string, string>,
  body: string,
  signals: readonly AbortSignal[],
) => Promise<JsonAnswer | Response>;

/** As the SDK's transport: these names are its own to set, whatever a caller's extra headers say. */
const RESERVED = new Set([
  'authorization',
  'dpop',
  'content-type',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-session-id',
]);

/** A name the SDK sends as is in `Mcp-Name` (its encoder base64-wraps anything else: those go the SDK's way). */
const PLAIN_NAME = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

const resultResponse = specTypeSchemas.JSONRPCResultResponse['~standard'];
const callToolResult = specTypeSchemas.CallToolResult['~standard'];

/** The header that marks the SDK's request for a call whose answer `sendDirect` already holds (never sent). */
const HAND_OFF_HEADER = 'x-mcpx-hand-off';

/** What `sendDirect` did: the call's complete result, or the headers to send the SDK's request with. */
type DirectOutcome = { result: Record<string, unknown> } | { handOff: Record<string, string> };

/** An answer `sendDirect` received that only the SDK's request reads: parsed JSON, or the answer as `fetch` gives it. */
type Held = { value: unknown } | { response: Response };

type Receive = NonNullable<Transport['onmessage']>;

/** A PostJson over node-fetch.ts, whose other answers are tapped as the transport's `fetch` (stream-links.ts) taps them. */
export function nodePostJson(node: NodeFetch, links: Pick<StreamLinks, 'tap'>): PostJson {
  return async (url, headers, body, signals) => {
    const answer = await node.postJson(url, headers, body, signals);
    return answer instanceof Response ? links.tap(answer, body) : answer;
  };
}

export class PlainPostTransport extends StreamableHTTPClientTransport {
  readonly #url: URL;
  readonly #fetch: FetchLike;
  readonly #requestInit: RequestInit | undefined;
  readonly #postJson: PostJson | undefined;
  /** Answers already received, by request body, for the SDK's `send` to read instead of fetching. */
  readonly #received: Map<string, Response>;
  /** Answers `sendDirect` handed off, by the direct id, until the SDK's request for the call is sent. */
  readonly #handOffs = new Map<string, Held>();
  /** Direct ids -> the SDK's ids for the same calls, while the SDK reads their answers. */
  readonly #renamed = new Map<string, string | number>();
  #directCalls = 0;
  #closing: AbortController | undefined;

  /** `postJson`: how a plain request is sent, when given; else through `fetch`. */
  constructor(url: URL, options: Pick<Options, 'fetch' | 'requestInit'> & { fetch: FetchLike; postJson?: PostJson }) {
    const { postJson, ...transportOptions } = options;
    const base = options.fetch;
    const received = new Map<string, Response>();
    super(url, {
      ...transportOptions,
      fetch: (input, init) => {
        const held = typeof init?.body === 'string' ? received.get(init.body) : undefined;
        if (held === undefined) return base(input, init);
        received.delete(init!.body as string);
        return Promise.resolve(held);
      },
    });
    this.#received = received;
    this.#url = url;
    this.#fetch = base;
    this.#requestInit = options.requestInit;
    this.#postJson = postJson;
    // Every message the SDK reads passes here (a held answer's, a stream's, a resumed stream's): a handed-off
    // call's answer carries the direct id, which the SDK's request knows by its own.
    let receive: Receive | undefined;
    const renaming: Receive = (message, extra) => receive!(this.#renamed.size ? this.#rename(message) : message, extra);
    Object.defineProperty(this, 'onmessage', {
      configurable: true,
      enumerable: true,
      // Undefined until set, as the SDK's connect expects of a fresh transport (it chains any handler it finds).
      get: () => (receive ? renaming : undefined),
      set: (handler: Receive | undefined) => void (receive = handler),
    });
  }

  override async start(): Promise<void> {
    await super.start();
    this.#closing = new AbortController();
  }

  override async close(): Promise<void> {
    this.#closing?.abort();
    return super.close();
  }

  override async send(message: JSONRPCMessage | JSONRPCMessage[], options?: SendOptions): Promise<void> {
    const handOff = options?.headers?.[HAND_OFF_HEADER];
    if (handOff !== undefined) return this.#readHandOff(message as JSONRPCMessage & { id: string | number }, options!, handOff);
    const plain = this.#plain(message, options);
    if (!plain) return super.send(message, options);
    let response: Response;
    let body: string;
    try {
      const headers = this.#headers(plain, options!);
      body = JSON.stringify(message);
      const signals = [this.#closing!.signal, options!.requestSignal!];
      const answer = this.#postJson
        ? await this.#postJson(this.#url, headers, body, signals)
        : await this.#fetch(this.#url, {
            ...this.#requestInit,
            method: 'POST',
            headers,
            body,
            signal: AbortSignal.any(signals),
            redirect: 'manual',
          });
      const whole =
        answer instanceof JsonAnswer ||
        (answer.ok && answer.status !== 202 && isJsonContentType(answer.headers.get('content-type') ?? undefined));
      if (whole) {
        return this.#deliver(answer instanceof JsonAnswer ? answer.value : await answer.json());
      }
      response = answer;
    } catch (error) {
      if (options?.requestSignal?.aborted !== true) this.onerror?.(error as Error);
      throw error;
    }
    // Anything else: the SDK's send reads this answer as if it had fetched it.
    this.#received.set(body, response);
    try {
      return await super.send(message, options);
    } finally {
      this.#received.delete(body);
    }
  }

  /**
   * Posts a modern `tools/call` (its params as the SDK would send them, before the envelope) under a direct id.
   * Undefined, having sent nothing, when this transport cannot (not started, a session, sign-in, an unusual name)
   * or the client has no modern envelope: the SDK's request sends it. Rejects as the SDK's request would: a
   * transport failure as is (told to onerror), the timeout as the SDK's timeout, an abort as its cancel.
   */
  async sendDirect(
    client: Client,
    params: { name: string; arguments?: unknown } & Record<string, unknown>,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<DirectOutcome | undefined> {
    const closing = this.#closing;
    if (!this.#postJson || !closing || this.sessionId !== undefined || !plainName(params.name)) return undefined;
    // The SDK's own envelope (version, client info, capabilities) for a modern request; undefined on a legacy one.
    const envelope = (client as unknown as { _outboundMetaEnvelope?: () => unknown })._outboundMetaEnvelope?.();
    if (
      envelope === null ||
      typeof envelope !== 'object' ||
      typeof (envelope as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY] !== 'string'
    )
      return undefined;
    const { signal, timeoutMs } = options;
    if (signal?.aborted) throw cancelled(signal.reason);
    const id = `mcpx-${++this.#directCalls}`;
    const message = { method: 'tools/call', params: { ...params, _meta: envelope }, jsonrpc: '2.0', id } as const;
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs })),
      timeoutMs,
    );
    let answer: JsonAnswer | Response;
    try {
      const headers = this.#headers(message as PlainRequest, {});
      const signals = signal ? [closing.signal, deadline.signal, signal] : [closing.signal, deadline.signal];
      answer = await this.#postJson(this.#url, headers, JSON.stringify(message), signals);
    } catch (error) {
      if (signal?.aborted) throw cancelled(signal.reason);
      if (deadline.signal.aborted) throw deadline.signal.reason;
      this.onerror?.(error as Error);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (answer instanceof JsonAnswer) {
      const result = completeResult(answer.value, id);
      if (result) return { result };
      this.#handOffs.set(id, { value: answer.value });
    } else {
      this.#handOffs.set(id, { response: answer });
    }
    return { handOff: { [HAND_OFF_HEADER]: id } };
  }

  /** Forgets a hand-off once the SDK's request for it has settled (read, or never sent: aborted, not connected). */
  endHandOff(handOff: Record<string, string>): void {
    const id = handOff[HAND_OFF_HEADER]!;
    this.#handOffs.delete(id);
    this.#renamed.delete(id);
  }

  /** The SDK's request for a handed-off call: it reads the answer held for it, and nothing is sent. */
  async #readHandOff(message: JSONRPCMessage & { id: string | number }, options: NonNullable<SendOptions>, id: string) {
    const held = this.#handOffs.get(id);
    this.#handOffs.delete(id);
    // Sending it now would run the call a second time.
    if (!held) throw new Error(`mcpx: no answer is held for the call ${id}; it is not sent again`);
    this.#renamed.set(id, message.id);
    if ('value' in held) {
      try {
        return this.#deliver(held.value);
      } catch (error) {
        this.onerror?.(error as Error);
        throw error;
      }
    }
    const { [HAND_OFF_HEADER]: _handOff, ...headers } = options.headers!;
    const body = JSON.stringify(message);
    // An error status's body is read by the SDK's send itself (a 400's JSON-RPC error is matched to the request by id).
    this.#received.set(body, held.response.status >= 400 ? await renamedBody(held.response, id, message.id) : held.response);
    try {
      return await super.send(message, { ...options, headers });
    } finally {
      this.#received.delete(body);
    }
  }

  /** A whole JSON answer's messages, checked as the SDK's send checks them, to the SDK. */
  #deliver(data: unknown): void {
    const messages = Array.isArray(data) ? data.map((m) => parseJSONRPCMessage(m)) : [asMessage(data)];
    for (const m of messages) this.onmessage?.(m);
  }

  /** A response to a handed-off call, under the SDK's id for it. */
  #rename(message: JSONRPCMessage): JSONRPCMessage {
    const { id } = message as { id?: unknown };
    if (typeof id !== 'string' || !('result' in message || 'error' in message)) return message;
    const to = this.#renamed.get(id);
    if (to === undefined) return message;
    this.#renamed.delete(id);
    return { ...message, id: to } as JSONRPCMessage;
  }

  /** The request, when it is one this path takes: a single modern `tools/call` with a plain tool name, no session. */
  #plain(message: JSONRPCMessage | JSONRPCMessage[], options: SendOptions): PlainRequest | undefined {
    if (Array.isArray(message) || this.#closing === undefined || this.sessionId !== undefined) return undefined;
    if (options?.requestSignal === undefined || options.resumptionToken) return undefined;
    const request = message as Partial<PlainRequest> & { id?: unknown };
    if (request.method !== 'tools/call' || request.jsonrpc !== '2.0' || request.id === undefined) return undefined;
    const params = request.params;
    const version = params?._meta?.[PROTOCOL_VERSION_META_KEY];
    if (typeof version !== 'string') return undefined;
    if (!plainName(params!.name)) return undefined;
    return request as PlainRequest;
  }

  /** The headers the SDK's send builds for this request, lower-cased as a web Headers holds them. */
  #headers(request: PlainRequest, options: NonNullable<SendOptions>): Record<string, string> {
    const version = request.params._meta[PROTOCOL_VERSION_META_KEY] as string;
    // Nothing of the caller's to merge (the usual case): the SDK's headers, as its send builds them.
    if (this.#requestInit?.headers === undefined && options.headers === undefined)
      // In a web Headers' order (sorted), so the wire is the same either way.
      return {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-method': request.method,
        'mcp-name': request.params.name,
        'mcp-protocol-version': version,
      };
    const headers = new Headers(this.#requestInit?.headers || undefined);
    headers.set('mcp-protocol-version', version);
    headers.set('mcp-method', request.method);
    headers.set('mcp-name', request.params.name);
    if (options.headers !== undefined)
      for (const [name, value] of Object.entries(options.headers))
        if (!RESERVED.has(name.toLowerCase())) headers.set(name, value);
    headers.set('content-type', 'application/json');
    const types = [
      ...(headers
        .get('accept')
        ?.split(',')
        .map((s) => s.trim().toLowerCase()) ?? []),
      'application/json',
      'text/event-stream',
    ];
    headers.set('accept', [...new Set(types)].join(', '));
    return headerRecord(headers);
  }
}

interface PlainRequest {
  jsonrpc: '2.0';
  method: 'tools/call';
  params: { name: string; _meta: Record<string, unknown> };
}

const plainName = (name: unknown): name is string =>
  typeof name === 'string' && PLAIN_NAME.test(name) && !(name.startsWith('=?base64?') && name.endsWith('?='));

/** As the SDK's request rejects on its signal's abort. */
const cancelled = (reason: unknown): Error =>
  reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason));

/**
 * A direct call's answer when it is a complete result the spec's schema accepts, as the SDK returns it: the value
 * the transport's check of the response gives, `resultType` lifted off. Undefined for anything else (the SDK reads it).
 */
function completeResult(value: unknown, id: string): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const raw = value as { id?: unknown; result?: { resultType?: unknown } };
  if (raw.id !== id || raw.result?.resultType !== 'complete' || 'error' in raw || 'method' in raw) return undefined;
  const response = resultResponse.validate(value);
  if (response instanceof Promise || response.issues) return undefined;
  const result = (response.value as { result: Record<string, unknown> }).result;
  const checked = callToolResult.validate(result);
  if (checked instanceof Promise || checked.issues) return undefined;
  const { resultType: _complete, ...lifted } = result;
  return lifted;
}

/** An error answer whose JSON body answers the direct id, under the SDK's id (the rest of its text as it came). */
async function renamedBody(response: Response, from: string, to: string | number): Promise<Response> {
  const text = await response.text();
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  let parsed: { id?: unknown } | null;
  try {
    parsed = JSON.parse(text) as { id?: unknown } | null;
  } catch {
    return new Response(text, init);
  }
  if (parsed?.id !== from) return new Response(text, init);
  const renamed = text.replace(/("id"\s*:\s*)"mcpx-\d+"/, (_match, key: string) => key + JSON.stringify(to));
  // The replaced text, unless the first such id in it was not the response's own.
  return new Response(
    (JSON.parse(renamed) as { id?: unknown }).id === to ? renamed : JSON.stringify({ ...parsed, id: to }),
    init,
  );
}

/** A result response through its own member of the message union (the value the union returns); anything else through the union. */
function asMessage(data: unknown): JSONRPCMessage {
  if (data !== null && typeof data === 'object' && 'result' in data && !('method' in data) && !('error' in data)) {
    const checked = resultResponse.validate(data);
    if (!(checked instanceof Promise) && checked.issues === undefined) return checked.value as JSONRPCMessage;
  }
  return parseJSONRPCMessage(data);
}
