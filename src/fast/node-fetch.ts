/**
 * `fetch` over `node:http` with a keep-alive agent: for plain-http MCP upstreams (the transport's public `fetch`
 * option; undici cost more CPU per request than the call it carries on loopback). A JSON answer is read whole; an event stream is passed on
 * as it arrives. Anything else (https, an unusual body, a redirect to follow) goes to the global fetch.
 */
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FetchLike } from '@modelcontextprotocol/client';

export interface NodeFetch {
  fetch: FetchLike;
  /** Closes the kept-alive sockets. */
  close(): void;
}

export interface NodeFetchOptions {
  maxSockets?: number;
}

interface NodeRequest {
  method: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  signals: readonly AbortSignal[];
  /** Redirects are followed by the global fetch, given this; absent, a redirect is the answer. */
  follow?: RequestInit;
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function createNodeFetch(options: NodeFetchOptions = {}, base: FetchLike = fetch): NodeFetch {
  const agent = new Agent({ keepAlive: true, ...(options.maxSockets ? { maxSockets: options.maxSockets } : {}) });

  const viaNode = (url: URL, request: NodeRequest, retried: boolean): Promise<Response> =>
    new Promise((resolve, reject) => {
      const { signals, body, method } = request;
      const aborted = signals.find((signal) => signal.aborted);
      if (aborted) return reject(aborted.reason);
      const headers =
        body === undefined
          ? request.headers
          : { ...request.headers, 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.length) };
      const req = httpRequest(url, { method, headers, agent });
      let abortedBy: AbortSignal | undefined;
      const onAbort = (event: Event): void => {
        abortedBy = event.target as AbortSignal;
        const reason: unknown = abortedBy.reason;
        req.destroy(reason instanceof Error ? reason : new Error(String(reason)));
      };
      for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true });
      const done = (): void => {
        for (const signal of signals) signal.removeEventListener('abort', onAbort);
      };
      const failure = (error: Error): unknown => abortedBy?.reason ?? new TypeError('fetch failed', { cause: error });
      let answered = false;
      req.once('error', (error: NodeJS.ErrnoException) => {
        done();
        // The server closed an idle kept-alive socket just as this request went out on it: it never saw the
        // request, so sending it once more on a fresh socket is safe (Node's documented reusedSocket pattern).
        // Never once it has answered: the request ran.
        if (!answered && !retried && req.reusedSocket && error.code === 'ECONNRESET') resolve(viaNode(url, request, true));
        else reject(failure(error));
      });
      req.once('response', (res) => {
        answered = true;
        const status = res.statusCode ?? 500;
        if (request.follow && REDIRECT.has(status) && res.headers.location) {
          // Rare: the global fetch follows it, from the start, as it would have.
          res.resume();
          done();
          return resolve(base(url, request.follow));
        }
        const init = (): ResponseInit => {
          const responseHeaders = new Headers();
          const raw = res.rawHeaders;
          for (let i = 0; i < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
          return { status, statusText: res.statusMessage ?? '', headers: responseHeaders };
        };
        if (NULL_BODY.has(status) || method === 'HEAD') {
          res.resume();
          done();
          return resolve(new Response(null, init()));
        }
        const decoded = decode(res);
        if (/^\s*text\/event-stream/i.test(res.headers['content-type'] ?? '')) {
          // A stream lives on after this call returns: the abort listener stays until it ends.
          res.once('close', done);
          return resolve(new Response(Readable.toWeb(decoded) as ReadableStream<Uint8Array>, init()));
        }
        const chunks: Buffer[] = [];
        let ended = false;
        decoded.on('data', (chunk: Buffer) => chunks.push(chunk));
        decoded.once('end', () => {
          ended = true;
          done();
          resolve(wholeResponse(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), init()));
        });
        const failed = (error: Error): void => {
          done();
          reject(failure(error));
        };
        decoded.once('error', failed);
        // Before 'end', the connection went mid-answer (after it, every answer closes: no error to build).
        decoded.once('close', () => ended || failed(new Error('the connection closed before the answer ended')));
      });
      req.end(body);
    });

  return {
    fetch: (input, init = {}) => {
      const url = typeof input === 'string' ? new URL(input) : input;
      const body = init.body;
      const plain =
        body === undefined || body === null
          ? undefined
          : typeof body === 'string' || body instanceof Uint8Array
            ? body
            : body instanceof URLSearchParams
              ? String(body)
              : null;
      if (!(url instanceof URL) || url.protocol !== 'http:' || plain === null || init.redirect === 'error')
        return base(input, init);
      const headers = headerRecord(init.headers);
      if (body instanceof URLSearchParams && headers['content-type'] === undefined)
        headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
      const follow = (init.redirect ?? 'follow') === 'follow';
      return viaNode(
        url as URL,
        {
          method: (init.method ?? 'GET').toUpperCase(),
          headers,
          body: plain ?? undefined,
          signals: init.signal ? [init.signal] : [],
          ...(follow ? { follow: init } : {}),
        },
        false,
      );
    },
    close: () => agent.destroy(),
  };
}

/**
 * A whole answer, already read: its json(), text() and arrayBuffer() read the buffer directly, where a Response
 * built on the bytes runs them through a web stream first (measured: about a tenth of serve's CPU per plain
 * upstream call). `body` (a stream) is built only when asked for; reading it, or clone(), behaves as a Response.
 */
// Typed as a plain base: the DOM typings declare Response's methods as properties, which a subclass may not override.
const ResponseBase = Response as unknown as new (
  body: null,
  init: ResponseInit,
) => {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
};

class WholeResponse extends ResponseBase {
  #bytes: Buffer;
  #stream: Response | undefined;
  #used = false;

  constructor(bytes: Buffer, init: ResponseInit) {
    super(null, init);
    this.#bytes = bytes;
  }

  /** The stream-backed Response, once anything reads the body as a stream. */
  #streamed(): Response {
    return (this.#stream ??= new Response(this.#used ? null : this.#bytes, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    }));
  }

  #take(): Buffer {
    if (this.#stream || this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.#bytes;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#used && !this.#stream ? null : this.#streamed().body;
  }

  get bodyUsed(): boolean {
    return this.#stream ? this.#stream.bodyUsed : this.#used;
  }

  async text(): Promise<string> {
    return this.#stream ? this.#stream.text() : utf8(this.#take());
  }

  async json(): Promise<unknown> {
    return this.#stream ? this.#stream.json() : JSON.parse(utf8(this.#take()));
  }

  async blob(): Promise<Blob> {
    if (this.#used && !this.#stream) this.#take();
    return this.#streamed().blob();
  }

  async formData(): Promise<FormData> {
    if (this.#used && !this.#stream) this.#take();
    return this.#streamed().formData();
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#stream) return this.#stream.arrayBuffer();
    const bytes = this.#take();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  clone(): Response {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
    return this.#stream
      ? this.#stream.clone()
      : wholeResponse(this.#bytes, { status: this.status, statusText: this.statusText, headers: this.headers });
  }
}

const wholeResponse = (bytes: Buffer, init: ResponseInit): Response => new WholeResponse(bytes, init) as unknown as Response;

/** UTF-8 decoded as fetch decodes a body: a leading byte order mark dropped. */
function utf8(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Headers as a record with lower-cased names (repeated ones joined), as a web Headers holds them. */
function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  if (headers === undefined) return record;
  (headers instanceof Headers ? headers : new Headers(headers)).forEach((value, key) => (record[key] = value));
  return record;
}

/** The body as sent, decoded as the global fetch would (a server may compress even unasked). */
function decode(res: IncomingMessage): Readable {
  const encoding = res.headers['content-encoding']?.trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  res.once('error', (error) => decoder.destroy(error));
  return res.pipe(decoder);
}
