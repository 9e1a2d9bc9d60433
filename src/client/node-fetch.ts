/**
 * A `fetch` for plain-http MCP servers over `node:http` with a keep-alive agent, for the Streamable HTTP transport's
 * `fetch` option. Node's global fetch (undici) costs far more CPU per request than the call it carries on loopback
 * (it clones every request whose redirect mode is not `error`, and runs each body through web streams): through
 * `mcpx serve` that was most of a plain call's added time. A JSON answer is read whole and handed over as a buffer;
 * an event stream is passed on as it arrives. Anything this does not cover (https, an unusual body, `redirect:
 * 'error'`, a redirect to follow) goes to the global fetch, which then behaves as it always did.
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

const REDIRECT = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function createNodeFetch(base: FetchLike = fetch): NodeFetch {
  const agent = new Agent({ keepAlive: true });

  const viaNode = (url: URL, init: RequestInit, body: string | Uint8Array | undefined, retried: boolean): Promise<Response> =>
    new Promise((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(signal.reason);
      const headers: Record<string, string> = {};
      if (init.headers instanceof Headers) init.headers.forEach((value, key) => (headers[key] = value));
      else if (init.headers) new Headers(init.headers).forEach((value, key) => (headers[key] = value));
      if (body !== undefined)
        headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
      const method = (init.method ?? 'GET').toUpperCase();
      const req = httpRequest(url, { method, headers, agent });
      const onAbort = (): void =>
        void req.destroy(signal!.reason instanceof Error ? signal!.reason : new Error(String(signal!.reason)));
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      let answered = false;
      req.once('error', (error: NodeJS.ErrnoException) => {
        done();
        // The server closed an idle kept-alive socket just as this request went out on it: it never saw the
        // request, so sending it once more on a fresh socket is safe (Node's documented reusedSocket pattern).
        // Never once it has answered: the request ran.
        if (!answered && !retried && req.reusedSocket && error.code === 'ECONNRESET') resolve(viaNode(url, init, body, true));
        else reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
      });
      req.once('response', (res) => {
        answered = true;
        const status = res.statusCode ?? 500;
        const redirect = init.redirect ?? 'follow';
        if (redirect === 'follow' && REDIRECT.has(status) && res.headers.location) {
          // Rare: the global fetch follows it, from the start, as it would have.
          res.resume();
          done();
          return resolve(base(url, init));
        }
        const responseHeaders = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
        const init_ = { status, statusText: res.statusMessage ?? '', headers: responseHeaders };
        if (NULL_BODY.has(status) || method === 'HEAD') {
          res.resume();
          done();
          return resolve(new Response(null, init_));
        }
        const decoded = decode(res);
        if (/^\s*text\/event-stream/i.test(res.headers['content-type'] ?? '')) {
          // A stream lives on after this call returns: the abort listener stays until it ends.
          res.once('close', done);
          return resolve(new Response(Readable.toWeb(decoded) as ReadableStream<Uint8Array>, init_));
        }
        const chunks: Buffer[] = [];
        let ended = false;
        decoded.on('data', (chunk: Buffer) => chunks.push(chunk));
        decoded.once('end', () => {
          ended = true;
          done();
          resolve(wholeResponse(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), init_));
        });
        const failed = (error: Error): void => {
          done();
          reject(signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
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
              ? body.toString()
              : null;
      if (!(url instanceof URL) || url.protocol !== 'http:' || plain === null || init.redirect === 'error')
        return base(input, init);
      if (body instanceof URLSearchParams && !new Headers(init.headers).has('content-type'))
        init = {
          ...init,
          headers: { ...headerRecord(init.headers), 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
        };
      return viaNode(url, init, plain, false);
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

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  new Headers(headers).forEach((value, key) => (record[key] = value));
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
