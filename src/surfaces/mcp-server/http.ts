/**
 * `mcpx serve --http`: Streamable HTTP at /mcp. Modern (2026-07-28) requests are served statelessly by the SDK's
 * per-request handler; legacy ones by a sessionful transport per MCP session (legacy elicitation needs one: the
 * question travels on the call's response stream). Safe by default: loopback unless told otherwise, Host and
 * Origin checked against DNS rebinding, and a bearer token required on every request (--no-auth: loopback only).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  createMcpHandler,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import { McpxError } from '../../errors.js';
import type { ServeCore } from './core.js';
import { isObject } from './json-values.js';
import { createResourceWatches, listenedUris } from './listens.js';
import { createRequestStateSeal } from './request-state.js';
import { createServeServer } from './server.js';
import { createFastToolCalls } from './fast-call.js';
import { fastPathsOn } from '../../fast/index.js';
import { createPrincipals, type ServeAuth } from './http-principals.js';

export interface HttpServeOptions {
  env: Record<string, string | undefined>;
  version: string;
  host: string;
  port: number;
  /** The bearer tokens accepted (serve-token.ts), or none at all: allowed on loopback only. */
  auth: ServeAuth;
}

export interface HttpServe {
  url: string;
  close(): Promise<void>;
}

const SESSION_HEADER = 'x-mcpx-session';
/** How long a closing serve lets the calls it is answering finish before it cuts their connections. */
const DRAIN_MS = 1000;

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
}

function jsonError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/**
 * What isLegacyRequest reads of a request whose body is already parsed: its method and headers. Cheaper than a
 * full web Request (the modern handler builds its own), which every modern request would otherwise pay twice.
 */
function headersOnly(req: IncomingMessage): Request {
  return { method: req.method ?? 'GET', headers: { get: (name: string) => headerOf(req, name) } } as unknown as Request;
}

/** A header as a web `Headers.get` gives it: repeated ones joined, null when absent. */
function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

/**
 * A POSTed request (not initialize) whose `_meta` names a protocol version: the SDK's classifier never calls it
 * legacy (it serves it as modern, or refuses it on the modern path), so it skips a classification the modern
 * handler makes again. Anything else is left to isLegacyRequest.
 */
function claimsModern(req: IncomingMessage, body: unknown): boolean {
  if (req.method !== 'POST' || !isObject(body)) return false;
  const { method, params } = body;
  if (typeof method !== 'string' || method === 'initialize' || 'result' in body || 'error' in body) return false;
  return isObject(params) && isObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta;
}

/**
 * What the modern handler reads of a request whose body is already parsed: its method, URL, headers and abort
 * signal (the SDK reads the body of a Request only when it is given none parsed). Cheaper than a full web Request,
 * which undici builds at a cost comparable to the rest of the call.
 */
function parsedRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const has = (name: string): boolean => req.headers[name.toLowerCase()] !== undefined;
  return {
    method: req.method ?? 'GET',
    url: `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`,
    headers: { get: (name: string) => headerOf(req, name), has },
    signal,
  } as unknown as Request;
}

/** The web Request the modern handler reads when it must read the body itself (none parsed): no body, as given. */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method ?? 'GET',
    headers,
    signal,
  });
}

/**
 * Writes the handler's Response. A whole JSON body goes in one write with its length (headers and body in one
 * segment, no chunked trailer), which on loopback is most of a call's cost; an event stream is streamed as it comes.
 */
async function writeResponse(res: ServerResponse, response: Response, closed: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  if (!response.body) return void res.writeHead(response.status, headers).end();
  if (!headers['content-type']?.startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    return void res.writeHead(response.status, { ...headers, 'content-length': String(body.length) }).end(body);
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = response.body.getReader();
  closed.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      if (!res.write(chunk.value)) await new Promise<void>((drained) => (res.once('drain', drained), res.once('close', drained)));
  } catch {
    // The client went away mid-stream: nothing more to write.
  }
  res.end();
}

/** A body over the SDK's limit (4 MiB): refused with 413, as the SDK's own handler does. */
const TOO_LARGE = Symbol('too large');
/**
 * A refused body up to this size is read to its end (and dropped) before the 413 goes: a client still writing its
 * body when the connection closes gets a broken pipe, not the answer. Past it, the connection is cut at once.
 */
const READ_BEFORE_REFUSING = 8 * DEFAULT_MAX_REQUEST_BODY_SIZE;

/**
 * The body parsed, undefined (empty, or not JSON), or TOO_LARGE. Read by events: an async iterator costs more per
 * request.
 */
function readBody(req: IncomingMessage): Promise<unknown> {
  if (Number(req.headers['content-length']) > READ_BEFORE_REFUSING) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= DEFAULT_MAX_REQUEST_BODY_SIZE) chunks.push(chunk);
      else if (size > READ_BEFORE_REFUSING) resolve(TOO_LARGE);
      else chunks.length = 0;
    });
    req.once('error', reject);
    req.once('close', () => req.complete || reject(new Error('the request closed before its body ended')));
    req.once('end', () => {
      if (size > DEFAULT_MAX_REQUEST_BODY_SIZE) return resolve(TOO_LARGE);
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
      if (!text) return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** The request's path: as given when it is plainly /mcp (the usual case), else as a URL parser reads it. */
function pathOf(url: string | undefined): string {
  if (url === '/mcp') return url;
  return new URL(url ?? '/', 'http://localhost').pathname;
}

/** No token, or none accepted: 401, saying what to send. */
function refuseUnauthorized(res: ServerResponse): void {
  jsonError(
    res,
    401,
    -32001,
    'Unauthorized: send Authorization: Bearer <token> (the token mcpx serve printed at start, kept in <stateDir>/serve-token, or MCPX_SERVE_TOKEN)',
    { 'www-authenticate': 'Bearer' },
  );
}

/** Serving with no token at all is for loopback only; with tokens, there must be one. */
function checkAuth(auth: ServeAuth, host: string, loopback: boolean): void {
  if (!loopback && 'none' in auth)
    throw new McpxError(
      'CONFIG_INVALID',
      `--no-auth is for loopback only: serving on ${host} without a token would let anyone who reaches it call every tool with your credentials`,
    );
  if ('tokens' in auth && !auth.tokens.length)
    throw new McpxError('CONFIG_INVALID', 'mcpx serve --http needs at least one bearer token');
}

export async function serveOverHttp(core: ServeCore, options: HttpServeOptions): Promise<HttpServe> {
  const loopback = isLoopback(options.host);
  checkAuth(options.auth, options.host, loopback);
  const principals = createPrincipals(options.auth, core.defaultSession);
  const allowedHosts = loopback
    ? localhostAllowedHostnames()
    : [...localhostAllowedHostnames(), options.host.replace(/^\[|\]$/g, '')];
  const allowedOrigins = loopback
    ? localhostAllowedOrigins()
    : [...localhostAllowedOrigins(), options.host.replace(/^\[|\]$/g, '')];
  const seal = createRequestStateSeal(core.stateKey, core.ttlMs);

  // Modern: one instance per request, in the session handle() chose for it and wrote into its X-Mcpx-Session.
  const sessionOf = (header: string | null | undefined): string => header ?? core.defaultSession;
  const modernHandler = createMcpHandler(
    ({ era, requestInfo }) =>
      createServeServer(core, seal, { era, session: sessionOf(requestInfo?.headers.get(SESSION_HEADER)) }, options.version),
    { legacy: 'reject' },
  );
  // MCPX_FAST_PATHS=0: the SDK's handler serves every modern request (to rule the fast path out).
  const fast = fastPathsOn(options.env) ? createFastToolCalls(core, seal, options.version) : undefined;
  // A modern client's subscriptions/listen is served by the handler's listen router (one stream per listen, filtered
  // by its URIs); mcpx watches the URIs upstream while a stream names them, and puts each change on the bus once.
  const listens = createResourceWatches(core, (uri) => modernHandler.notify.resourceUpdated(uri));
  /** Watched before the acknowledgement goes out, so no change after it is missed; until the stream ends. */
  const watchListened = async (res: ServerResponse, uris: string[]): Promise<void> => {
    const release = await listens.hold(uris);
    if (res.closed) await release();
    else res.once('close', () => void release());
  };
  const modern = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const uris = listenedUris(body);
    if (uris.length) await watchListened(res, uris);
    const closed = new AbortController();
    // Gone before the whole answer was written: the call is cancelled, as the SDK's adapter does.
    res.once('close', () => !res.writableFinished && closed.abort());
    if (fast && body !== undefined && (await fast.serve(req, res, body, sessionOf(headerOf(req, SESSION_HEADER)), closed.signal)))
      return;
    const response =
      body === undefined
        ? await modernHandler.fetch(webRequest(req, closed.signal))
        : await modernHandler.fetch(parsedRequest(req, closed.signal), { parsedBody: body });
    await writeResponse(res, response, closed.signal);
  };
  /** Legacy MCP sessions, each with the principal that opened it: only that principal may use it. */
  const sessions = new Map<string, { transport: NodeStreamableHTTPServerTransport; principal: string }>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = pathOf(req.url);
    const host = validateHostHeader(req.headers.host, allowedHosts);
    if (!host.ok) return jsonError(res, 403, -32000, `Forbidden: ${host.message}`);
    const origin = validateOriginHeader(req.headers.origin, allowedOrigins);
    if (!origin.ok) return jsonError(res, 403, -32000, `Forbidden: ${origin.message}`);
    const principal = principals.of(req.headers.authorization);
    if (principal === undefined) return refuseUnauthorized(res);
    if (path !== '/mcp')
      return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the MCP endpoint is /mcp');
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (body === TOO_LARGE)
      return jsonError(
        res,
        413,
        -32000,
        `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes`,
        { connection: 'close' },
      );
    const sessionId = req.headers['mcp-session-id'];
    const legacy =
      typeof sessionId === 'string' || (!claimsModern(req, body) && (await isLegacyRequest(headersOnly(req), body ?? {})));
    if (!legacy) {
      const chosen = principals.session(principal, headerOf(req, SESSION_HEADER) ?? undefined);
      if ('refused' in chosen) return jsonError(res, 403, -32000, chosen.refused);
      // What the fast path and the SDK handler's server read: the session chosen, never the header as sent.
      req.headers[SESSION_HEADER] = chosen.session;
      // The SDK's request type is declared without exactOptionalPropertyTypes (`method?: string`).
      return modern(req as Parameters<typeof modern>[0], res, body);
    }

    const open = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (open && open.principal !== principal)
      return jsonError(res, 403, -32000, 'Forbidden: this MCP session was opened with another bearer token');
    let transport = open?.transport;
    if (!transport) {
      if (typeof sessionId === 'string') return jsonError(res, 404, -32001, 'Session not found: initialize again');
      if ((body as { method?: unknown } | undefined)?.method !== 'initialize')
        return jsonError(res, 400, -32000, 'Bad Request: no session; send initialize first');
      // Each legacy MCP session is its own mcpx session (its questions are its own), unless it names one it may use.
      const named = headerOf(req, SESSION_HEADER)?.trim();
      const session = named || `mcp-${randomBytes(8).toString('hex')}`;
      if (named) {
        const chosen = principals.session(principal, named);
        if ('refused' in chosen) return jsonError(res, 403, -32000, chosen.refused);
      } else principals.fresh(principal, session);
      const opened = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, { transport: opened, principal }),
      });
      opened.onclose = () => {
        if (opened.sessionId) sessions.delete(opened.sessionId);
        if (!named) principals.release(session);
      };
      await createServeServer(core, seal, { era: 'legacy', session }, options.version).connect(opened);
      transport = opened;
    }
    await transport.handleRequest(req, res, body);
  };

  /** Calls being answered (POSTs: a GET is a stream that lasts as long as its session). */
  const answering = new Set<ServerResponse>();
  const server: HttpServer = createServer((req, res) => {
    if (req.method === 'POST') {
      answering.add(res);
      res.once('close', () => answering.delete(res));
    }
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) jsonError(res, 500, -32603, `Internal error: ${(error as Error)?.message ?? String(error)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const shownHost = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Calls failed as the process stops (a lost lease fails every call in flight at once) get their answer out.
      const answered = [...answering].map((res) => new Promise((done) => res.once('close', done)));
      await Promise.race([Promise.all(answered), sleep(DRAIN_MS, undefined, { ref: false })]);
      await Promise.allSettled([...sessions.values()].map(({ transport }) => transport.close()));
      server.closeAllConnections();
      await closed;
    },
  };
}
