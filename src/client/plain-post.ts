/**
 * Streamable HTTP without sign-in, where a plain modern request costs less CPU: the SDK's `send` runs zod checks
 * on every outbound message (is it `initialize`? is it a request?) and parses each JSON answer against the
 * four-way JSON-RPC message union, which builds and throws away two failures per result. A single modern
 * `tools/call` (mcpx's forwarded calls) skips those: its headers are built as the SDK builds them, and a 200
 * `application/json` answer is checked against the result-response member of that same union (the same
 * schema object, so the same value). Any other answer (an error status, an event stream, a redirect, 202) is
 * handed back to the SDK's own `send`, whose fetch is given that answer instead of sending the request again:
 * from there on it runs exactly as it always did.
 */
import {
  PROTOCOL_VERSION_META_KEY,
  StreamableHTTPClientTransport,
  isJsonContentType,
  parseJSONRPCMessage,
  specTypeSchemas,
  type FetchLike,
  type JSONRPCMessage,
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
        const data: unknown = answer instanceof JsonAnswer ? answer.value : await answer.json();
        const messages = Array.isArray(data) ? data.map((m) => parseJSONRPCMessage(m)) : [asMessage(data)];
        for (const m of messages) this.onmessage?.(m);
        return;
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

  /** The request, when it is one this path takes: a single modern `tools/call` with a plain tool name, no session. */
  #plain(message: JSONRPCMessage | JSONRPCMessage[], options: SendOptions): PlainRequest | undefined {
    if (Array.isArray(message) || this.#closing === undefined || this.sessionId !== undefined) return undefined;
    if (options?.requestSignal === undefined || options.resumptionToken) return undefined;
    const request = message as Partial<PlainRequest> & { id?: unknown };
    if (request.method !== 'tools/call' || request.jsonrpc !== '2.0' || request.id === undefined) return undefined;
    const params = request.params;
    const version = params?._meta?.[PROTOCOL_VERSION_META_KEY];
    if (typeof version !== 'string') return undefined;
    const name = params!.name;
    if (typeof name !== 'string' || !PLAIN_NAME.test(name) || (name.startsWith('=?base64?') && name.endsWith('?=')))
      return undefined;
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

/** A result response through its own member of the message union (the value the union returns); anything else through the union. */
function asMessage(data: unknown): JSONRPCMessage {
  if (data !== null && typeof data === 'object' && 'result' in data && !('method' in data) && !('error' in data)) {
    const checked = resultResponse.validate(data);
    if (!(checked instanceof Promise) && checked.issues === undefined) return checked.value as JSONRPCMessage;
  }
  return parseJSONRPCMessage(data);
}
