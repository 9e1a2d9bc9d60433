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

type Options = NonNullable<ConstructorParameters<typeof StreamableHTTPClientTransport>[1]>;
type SendOptions = Parameters<StreamableHTTPClientTransport['send']>[1];

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

export class PlainPostTransport extends StreamableHTTPClientTransport {
  readonly #url: URL;
  readonly #fetch: FetchLike;
  readonly #requestInit: RequestInit | undefined;
  /** Answers already received, by request body, for the SDK's `send` to read instead of fetching. */
  readonly #received: Map<string, Response>;
  #closing: AbortController | undefined;

  constructor(url: URL, options: Pick<Options, 'fetch' | 'requestInit'> & { fetch: FetchLike }) {
    const base = options.fetch;
    const received = new Map<string, Response>();
    super(url, {
      ...options,
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
      const signal = AbortSignal.any([this.#closing!.signal, options!.requestSignal!]);
      response = await this.#fetch(this.#url, {
        ...this.#requestInit,
        method: 'POST',
        headers,
        body,
        signal,
        redirect: 'manual',
      });
      if (response.ok && response.status !== 202 && isJsonContentType(response.headers.get('content-type') ?? undefined)) {
        const data: unknown = await response.json();
        const messages = Array.isArray(data) ? data.map((m) => parseJSONRPCMessage(m)) : [asMessage(data)];
        for (const m of messages) this.onmessage?.(m);
        return;
      }
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

  /** The headers the SDK's send builds for this request. */
  #headers(request: PlainRequest, options: NonNullable<SendOptions>): Headers {
    const headers = new Headers(this.#requestInit?.headers || undefined);
    headers.set('mcp-protocol-version', request.params._meta[PROTOCOL_VERSION_META_KEY] as string);
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
    return headers;
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
