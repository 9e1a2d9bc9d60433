/**
 * One upstream connection: a v2 Client with honest capabilities, over stdio, Streamable HTTP or a host-supplied
 * transport, in the era the server speaks. `auto` probes once (in place on stdio: one spawn) and caches the verdict;
 * later connects adopt it with zero round trips.
 */
import {
  Client,
  SdkError,
  StreamableHTTPClientTransport,
  type JSONRPCErrorResponse,
  type JSONRPCResponse,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpxError } from '../errors.js';
import type { Era } from '../types.js';
import { isHttpServer, type ServerConfig } from '../config/schema.js';
import type { Auth } from '../auth/index.js';
import { signInErrorOf } from '../auth/sign-in/question.js';
import { serverFingerprint, type EraCache, type EraVerdict } from './era-cache.js';
import type { WireElicitResult } from './seam.js';
import { filled, type AskedValues } from './credentials.js';
import { createStreamLinks } from './stream-links.js';
import { createNodeFetch, fastPathsOn } from '../fast/index.js';
import { stdioSpawnOf, takeEarly } from './prespawn.js';
import { AdoptedStdioTransport } from './adopted-stdio.js';
import { wrapCreatedTask } from './mcp-tasks/index.js';
import { ConnectBound, DEFAULT_CONNECT_TIMEOUT_MS, isProbeClosed } from './connect-bound.js';

/** The modern revision mcpx speaks. */
export const MODERN_VERSION = '2026-07-28';
/** A cached legacy verdict is re-probed after a day: an upgraded server still answers `initialize`. */
export const LEGACY_VERDICT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * The SDK gives only its base stdio transport a disposable sibling process to probe `server/discover` on; a subclass
 * probes in place (its documented rule, pinned by test/dependencies/mcp-sdk.test.ts): one spawn, not two.
 */
class InPlaceStdioTransport extends StdioClientTransport {}

/**
 * The spec (2026-07-28, basic/index.mdx) says a result without `resultType` is complete; the v2 SDK refuses one
 * as INVALID_RESULT on a modern connection. Responses are stamped `complete` on the way in, before the SDK
 * decodes them (its documented subclass seam); anything that is not a plain result object passes untouched.
 */
class McpxClient extends Client {
  /** How many results came without `resultType` (a legacy server's answer looks like that). */
  resultsWithoutType = 0;

  protected override _onresponse(response: JSONRPCResponse | JSONRPCErrorResponse): void {
    // A task handle (2026-07-28 tasks extension) is a result type the SDK refuses: passed on wrapped, for mcp-tasks/.
    if (
      this.getProtocolEra() === 'modern' &&
      'result' in response &&
      isPlainObject(response.result) &&
      response.result.resultType === 'task'
    ) {
      super._onresponse({ ...response, result: wrapCreatedTask(response.result) });
      return;
    }
    if (
      this.getProtocolEra() === 'modern' &&
      'result' in response &&
      isPlainObject(response.result) &&
      response.result.resultType === undefined
    ) {
      this.resultsWithoutType += 1;
      super._onresponse({ ...response, result: { ...response.result, resultType: 'complete' } });
      return;
    }
    super._onresponse(response);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A server the host wires itself (in-memory pairs in tests, custom transports): always negotiated, never cached. */
export interface ServerConnector {
  connect(): Transport | Promise<Transport>;
  /** Every question this server asks is mcpx's own (an adapter's write confirmation): only a person may accept it. */
  asksForMcpx?: boolean;
  era?: 'auto' | Era;
  timeoutMs?: number;
}

export interface ConnectionOptions {
  name: string;
  server: ServerConfig | ServerConnector;
  clientInfo: { name: string; version: string };
  /** What mcpx can deliver: form whenever anything can answer; url only when the host can open URLs. */
  elicitation: { form: boolean; url: boolean };
  eraCache: EraCache;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Values of the config's `{"ask": ...}` entries, asked for or read from the secret store; never part of the era cache key. */
  asked?: AskedValues;
  /** Scrubs known secret values (the config's `${VAR}` values, asked credentials) from a failure's message. */
  redact?: (text: string) => string;
  /** Answers a legacy `elicitation/create` (the modern era never sends one). */
  onLegacyElicit(params: Record<string, unknown>, link: LegacyLink): Promise<WireElicitResult>;
  /** A `notifications/progress` for a request that carried a progress token of ours. */
  onProgress?(token: string | number): void;
  /** A resource the server was subscribed to changed. */
  onResourceUpdated?(uri: string): void;
  /** A call's progress or log message, by the string progress token of the call (log messages over HTTP only). */
  onNotification?(token: string, method: string, params: Record<string, unknown>): void;
  /**
   * Where a server's `sampling/createMessage` and `roots/list` go: each is declared only when given. mcpx answers
   * neither itself; `mcpx serve` gives them to a client's own connections (that client declared them).
   */
  forward?: ServerRequestForwarding;
  /** A modern server's log message that came on no call's stream (stdio, a host transport): nothing names its call. */
  onUntiedLog?(params: Record<string, unknown>): void;
  /** OAuth for Streamable HTTP servers; absent: a 401 is an error. */
  auth?: Auth;
  /** How long connecting (probe and `initialize` together) may take (default 10 s): a sign-in in it waits for a person. */
  connectTimeoutMs?: number;
  /** Aborted when mcpx closes: a connect in flight ends (its process with it) instead of holding the close up. */
  signal?: AbortSignal;
  now?: () => number;
}

export interface ServerRequestForwarding {
  sampling?(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  roots?(params: Record<string, unknown> | undefined): Promise<Record<string, unknown>>;
}

/** What the wire says about which call a server request serves. */
export interface LegacyLink {
  /** The progress token of the call whose Streamable HTTP response stream carried the request. */
  streamOf?: string;
}

export interface Connection {
  name: string;
  client: Client;
  era: Era;
  /** Whether the era came from the cache (no probe on this connect). */
  fromCache: boolean;
  /** Whether requests may carry HTTP headers (Streamable HTTP, or a host transport that may be): not stdio. */
  carriesHeaders: boolean;
  /** Drops this server's cached verdict (after a failure that suggests it is stale). */
  forgetVerdict(): Promise<void>;
  /** The last lines the server wrote to stderr (stdio only), for error messages. */
  stderrTail(): string;
  /** How many modern results came without `resultType` (stamped complete). */
  resultsWithoutType(): number;
  /** The capabilities mcpx declares on this connection (a modern task call adds the tasks extension to them). */
  declared: Record<string, unknown>;
  close(): Promise<void>;
}

function isConnector(server: ServerConfig | ServerConnector): server is ServerConnector {
  return typeof (server as ServerConnector).connect === 'function';
}

export async function openConnection(options: ConnectionOptions): Promise<Connection> {
  const now = options.now ?? Date.now;
  const { server } = options;
  let stderr = '';
  // Its kept-alive sockets belong to this connection: closed with it.
  const httpFetch = !isConnector(server) && isHttpServer(server) && fastPathsOn(options.env) ? createNodeFetch() : undefined;
  const links = createStreamLinks(httpFetch?.fetch ?? fetch, (token, message) =>
    options.onNotification?.(token, String(message.method), (message.params ?? {}) as Record<string, unknown>),
  );
  const makeTransport = (): Transport | Promise<Transport> => {
    if (isConnector(server)) return server.connect();
    if (isHttpServer(server)) {
      const http = {
        fetch: links.fetch,
        ...(server.headers ? { requestInit: { headers: filled(server.headers, options.asked?.headers) } } : {}),
      };
      return options.auth
        ? options.auth.transport(options.name, server, {
            ...http,
            ...(options.asked?.oauth ? { secrets: options.asked.oauth } : {}),
          })
        : new StreamableHTTPClientTransport(new URL(server.url), http);
    }
    const spec = stdioSpawnOf(server, options.env, options.cwd, options.asked);
    // A process started early for exactly this spawn (prespawn.ts) is adopted; otherwise the SDK spawns one.
    const early = takeEarly(spec);
    const transport = early ? new AdoptedStdioTransport(early) : new InPlaceStdioTransport({ ...spec, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    return transport;
  };

  const setting = server.era ?? 'auto';
  const key = isConnector(server) ? undefined : serverFingerprint(server);
  const cached = key && setting === 'auto' ? usable(await options.eraCache.get(key), now()) : undefined;

  const bound = new ConnectBound(options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, options.signal);
  const attempt = async (prior: EraVerdict | 'legacy' | undefined): Promise<McpxClient> => {
    const mode = setting === 'legacy' ? 'legacy' : setting === 'modern' ? { pin: MODERN_VERSION } : 'auto';
    const client = createClient({ ...options, connectTimeoutMs: bound.ms }, mode, links.take);
    const transport = await makeTransport();
    const known =
      prior === 'legacy' || prior?.era === 'legacy'
        ? { prior: { kind: 'legacy' as const } }
        : prior?.era === 'modern'
          ? { prior: { kind: 'modern' as const, discover: prior.discover as never } }
          : {};
    try {
      const connecting = client.connect(transport, { timeout: bound.ms, ...known });
      await bound.run(connecting, () => Promise.allSettled([client.close(), transport.close()]));
      return client;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  };

  let client: McpxClient;
  let fromCache = false;
  try {
    if (cached) {
      try {
        client = await attempt(cached);
        fromCache = true;
      } catch (error) {
        // A sign-in answered no is not a stale verdict: negotiating afresh would only ask again.
        if (signInErrorOf(error) || bound.stopped) throw error;
        // A stale verdict: forget it and negotiate afresh.
        await options.eraCache.delete(key!);
        client = await attempt(undefined);
      }
    } else {
      try {
        client = await attempt(undefined);
      } catch (error) {
        // An in-place probe cannot survive a legacy server that exits on `server/discover`: start it again, legacy.
        if (setting === 'auto' && !isConnector(server) && !isHttpServer(server) && isProbeClosed(error) && !bound.stopped)
          client = await attempt('legacy');
        else throw error;
      }
    }
  } catch (error) {
    httpFetch?.close();
    if (options.signal?.aborted) throw new McpxError('CALL_FAILED', 'mcpx was closed while connecting', { cause: error });
    throw connectFailed(options.name, server, error, stderr, options.redact ?? ((text) => text));
  } finally {
    bound.done();
  }

  const era: Era = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  if (key && setting === 'auto' && !fromCache) {
    const discover = client.getDiscoverResult();
    await options.eraCache.set(
      key,
      era === 'modern' && discover
        ? { era, discover: discover as unknown as Record<string, unknown>, at: now() }
        : { era: 'legacy', at: now() },
    );
  }
  return {
    name: options.name,
    client,
    era,
    fromCache,
    carriesHeaders: isConnector(server) || isHttpServer(server),
    forgetVerdict: async () => {
      if (key) await options.eraCache.delete(key);
    },
    stderrTail: () => (options.redact ?? String)(stderr.trim().split('\n').slice(-5).join('\n')),
    resultsWithoutType: () => client.resultsWithoutType,
    declared: declaredCapabilities(options),
    close: async () => {
      try {
        await client.close();
      } finally {
        httpFetch?.close();
      }
    },
  };
}

function usable(verdict: EraVerdict | undefined, now: number): EraVerdict | undefined {
  if (!verdict) return undefined;
  if (verdict.era === 'modern') return verdict.discover ? verdict : undefined;
  return now - verdict.at < LEGACY_VERDICT_MAX_AGE_MS ? verdict : undefined;
}

/** What mcpx declares: elicitation where something answers; roots and sampling only where someone else answers them. */
function declaredCapabilities(options: ConnectionOptions): {
  elicitation?: { form?: { applyDefaults: boolean }; url?: Record<string, never> };
  sampling?: Record<string, never>;
  roots?: Record<string, never>;
} {
  const { form, url } = options.elicitation;
  const elicitation =
    form || url ? { ...(form ? { form: { applyDefaults: true } } : {}), ...(url ? { url: {} } : {}) } : undefined;
  const { forward } = options;
  return {
    ...(elicitation ? { elicitation } : {}),
    ...(forward?.sampling ? { sampling: {} } : {}),
    ...(forward?.roots ? { roots: {} } : {}),
  };
}

function createClient(
  options: ConnectionOptions,
  mode: 'legacy' | 'auto' | { pin: string },
  streamOf: (id: string | number) => string | undefined,
): McpxClient {
  const capabilities = declaredCapabilities(options);
  const { elicitation } = capabilities;
  const { forward } = options;
  const client = new McpxClient(options.clientInfo, {
    capabilities,
    versionNegotiation: { mode, ...(options.connectTimeoutMs ? { probe: { timeoutMs: options.connectTimeoutMs } } : {}) },
    // Modern questions come back to mcpx as values (a continuation), never fulfilled behind its back.
    inputRequired: { autoFulfill: false },
  });
  if (elicitation) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const related = streamOf(ctx.mcpReq.id);
      return (await options.onLegacyElicit(
        request.params as Record<string, unknown>,
        related === undefined ? {} : { streamOf: related },
      )) as never;
    });
  }
  if (forward?.sampling) {
    const sampling = forward.sampling;
    client.setRequestHandler('sampling/createMessage', async (request) => (await sampling(request.params)) as never);
  }
  if (forward?.roots) {
    const roots = forward.roots;
    client.setRequestHandler('roots/list', async (request) => (await roots(request.params)) as never);
  }
  // Legacy calls carry mcpx's own string progress tokens (the SDK would number them like the server numbers its
  // requests, so a server's token could be mistaken for a call's); their progress is routed here.
  const { onProgress, onNotification, onResourceUpdated, onUntiedLog } = options;
  // Over Streamable HTTP a log message is read off its call's stream (stream-links.ts); elsewhere it names no call.
  if (onUntiedLog && (isConnector(options.server) || !isHttpServer(options.server)))
    client.setNotificationHandler('notifications/message', (notification) => {
      // A legacy server logs at its session's level, for no call in particular.
      if (client.getProtocolEra() === 'modern') onUntiedLog(notification.params as Record<string, unknown>);
    });
  if (onResourceUpdated)
    client.setNotificationHandler('notifications/resources/updated', (notification) =>
      onResourceUpdated(notification.params.uri),
    );
  if (onProgress || onNotification)
    client.setNotificationHandler('notifications/progress', (notification) => {
      const token = notification.params.progressToken;
      onProgress?.(token);
      if (typeof token === 'string') onNotification?.(token, notification.method, notification.params);
    });
  return client;
}

function connectFailed(
  name: string,
  server: ServerConfig | ServerConnector,
  error: unknown,
  stderr: string,
  redact: (text: string) => string,
): McpxError {
  // A sign-in that was declined or could not be asked says so itself.
  const signIn = signInErrorOf(error);
  if (signIn) return signIn;
  // A host-supplied server that refuses with its own error (an adapter whose description is unusable) says why itself.
  if (isConnector(server) && error instanceof McpxError) return error;
  const target = isConnector(server)
    ? 'a host-supplied transport'
    : isHttpServer(server)
      ? server.url
      : [server.command, ...(server.args ?? [])].join(' ');
  const reason = error instanceof Error ? error.message : String(error);
  const tail = stderr.trim() ? `\nserver stderr:\n${stderr.trim().split('\n').slice(-5).join('\n')}` : '';
  const code = error instanceof SdkError && error.code === 'ERA_NEGOTIATION_FAILED' ? 'ERA_NEGOTIATION_FAILED' : 'CONNECT_FAILED';
  // The command line, the reason and the server's stderr may all hold a token: shown and stored only redacted.
  return new McpxError(code, redact(`cannot connect to server "${name}" (${target}): ${reason}${tail}`), {
    cause: error,
    data: { server: name },
  });
}
