/**
 * The CLI's HTTP client for its daemon's unix socket, on node:http: the warm `mcpx call` path loads this and not the
 * code that starts a daemon (client.ts), so it stays small.
 */
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

/**
 * What the CLI reads of a daemon's answer: the part of a standard Response it uses. The socket client answers a
 * lighter object of this shape, because building a real Response loads Node's bundled undici (~25 ms per command).
 */
export interface DaemonResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  /** The body as a web stream (the event stream reads it), or null when the status has none. */
  readonly body: ReadableStream<Uint8Array> | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** Sends one request to the daemon: a path (`/v1/...`) and fetch's init; answers a Response (or its lighter shape). */
export type DaemonFetch = (path: string, init?: RequestInit) => Promise<DaemonResponse>;

/**
 * A fetch over a unix socket (Node 20's fetch cannot dial one), on node:http. Keeps the connection alive between
 * calls. It answers a DaemonResponse, not a Response: neither side touches the global Headers or Response, whose
 * first use loads Node's bundled undici (~25 ms of a warm `mcpx call`).
 */
export function socketFetch(socket: string): { fetch: DaemonFetch; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const fetchOverSocket = (path: string, init: RequestInit = {}, retried = false): Promise<DaemonResponse> =>
    new Promise((resolve, reject) => {
      const headers = plainHeaders(init.headers);
      const body =
        init.body === undefined || init.body === null ? undefined : typeof init.body === 'string' ? init.body : String(init.body);
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      // An empty servername: the agent would otherwise test the host name against Node's IPv6 pattern, whose
      // first use compiles a large regular expression (milliseconds per command); a unix socket has no host.
      const target = { socketPath: socket, servername: '', path, method: init.method ?? 'GET', headers, agent };
      const req = httpRequest(target, (res) => {
        const status = res.statusCode ?? 500;
        const nullBody = status === 204 || status === 304 || init.method === 'HEAD';
        if (nullBody) res.resume();
        resolve(socketResponse(res, status, nullBody));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // The daemon closed an idle kept-alive socket just as this request went out on it: it never saw the
        // request, so sending it once more on a fresh socket is safe (Node's documented reusedSocket pattern).
        if (!retried && req.reusedSocket && error.code === 'ECONNRESET') resolve(fetchOverSocket(path, init, true));
        else reject(error);
      });
      init.signal?.addEventListener(
        'abort',
        () => req.destroy(init.signal?.reason instanceof Error ? init.signal.reason : new Error('aborted')),
        { once: true },
      );
      req.end(body);
    });
  return { fetch: fetchOverSocket, close: () => agent.destroy() };
}

/** Whether a socket request failed because nothing listens there (a stale state file): it never reached a daemon. */
export function nothingListens(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNREFUSED' || code === 'ENOENT';
}

/** fetch's header forms (a record, pairs, or a Headers) as node:http's record, without constructing a Headers. */
function plainHeaders(init: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!init) return headers;
  const pairs: Iterable<[string, string]> = Array.isArray(init)
    ? (init as [string, string][])
    : typeof (init as Headers).entries === 'function'
      ? (init as Headers).entries()
      : Object.entries(init);
  for (const [key, value] of pairs) {
    const name = key.toLowerCase();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

/** The answer as a DaemonResponse: the body is read straight off the socket, or as a web stream when asked for. */
function socketResponse(res: IncomingMessage, status: number, nullBody: boolean): DaemonResponse {
  let stream: ReadableStream<Uint8Array> | undefined;
  const readAll = async (): Promise<string> => {
    if (nullBody) return '';
    const chunks: Buffer[] = [];
    if (stream) for await (const chunk of stream) chunks.push(Buffer.from(chunk));
    else for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: {
      get(name) {
        const value = res.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    get body() {
      if (nullBody) return null;
      stream ??= Readable.toWeb(res) as ReadableStream<Uint8Array>;
      return stream;
    },
    text: readAll,
    json: async () => JSON.parse(await readAll()) as unknown,
  };
}

/** Whether a daemon answers its health route on this socket (within 2 s). */
export async function healthy(socket: string): Promise<boolean> {
  const { fetch, close } = socketFetch(socket);
  try {
    const response = await fetch('/v1/health', { signal: AbortSignal.timeout(2_000) });
    await response.text();
    return response.ok;
  } catch {
    return false;
  } finally {
    close();
  }
}
