/**
 * The pool's connections: opened lazily per server and reused, their era on probation until a request proves it,
 * and the asked credentials a configured server needs before it can start.
 */
import { ProtocolError, SdkError, SdkHttpError } from '@modelcontextprotocol/client';
import { isMachineGrant } from '../../auth/machine-provider.js';
import { SIGN_IN_RETURN_MS } from '../../auth/provider.js';
import { isHttpServer } from '../../config/schema.js';
import { McpxError } from '../../errors.js';
import { stateDir } from '../../paths.js';
import type { SecretStore } from '../../secrets/types.js';
import type { ClientPoolOptions } from './pool.js';
import { openConnection, type Connection, type LegacyLink } from '../connection.js';
import { redact, secretStoreForm } from '../../secrets/redact.js';
import { askedEntries, readAsked, type AskedEntry, type AskedValues } from '../credentials.js';
import type { LegacyCall } from '../legacy-call.js';
import type { CallNotifications } from '../outcome.js';
import type { HeaderScan } from '../param-headers.js';
import type { WireElicitResult } from '../seam.js';
import { heldElsewhere, signInHoldsOf, signInPending, waitingSignIn, type SignInHolds } from '../sign-in-hold.js';

export interface Pooled {
  connection: Connection;
  /** Legacy calls in flight: a server's `elicitation/create` belongs to one of them. */
  active: LegacyCall<unknown>[];
  /**
   * Modern requests in flight that asked for log messages, by progress token. Over stdio a log message names no
   * request: it can only be the one request that asked (2026-07-28 sends none for a request that did not).
   */
  logging: Set<string>;
  /** Each listed tool's `x-mcp-header` declarations; unset until the tools are listed. */
  tools?: Map<string, HeaderScan> | undefined;
  /** A request has succeeded on it: its era is proven. */
  proven: boolean;
}

/** What the pool's requests and listings share: the open connections and the era checks on them. */
export interface Connections {
  now: () => number;
  serverNames(): string[];
  /** A server's own `timeoutMs` (config) wins over the instance default. */
  timeoutFor(name: string): number;
  /** The server's pooled connection, opened on first need. */
  get(name: string): Promise<Pooled>;
  /** Whether a connection to the server is open or opening. */
  has(name: string): boolean;
  /** An era taken from the cache is on probation until a request succeeds on it. */
  onProbation(pooled: Pooled): boolean;
  onFailure<T>(name: string, pooled: Pooled, error: McpxError, retry: () => Promise<T>, idempotent: boolean): Promise<T>;
  onSuccess(name: string, pooled: Pooled): Promise<void>;
  secrets(): Promise<SecretStore>;
  /** The asked entries of a configured server that have no value yet, here or in the secret store. */
  missingCredentials(name: string): Promise<AskedEntry[]>;
  /** Calls that want their notifications, by the progress token their requests carry (unique in the pool). */
  routes: Map<string, CallNotifications>;
  /** The sign-ins calls hold, per server: the Auth's (shared by a daemon's sessions), else this pool's. */
  holds: SignInHolds;
  /**
   * Called when a pooled connection ends without mcpx closing it (a stdio server exited; a legacy HTTP server answers
   * `404` to its session): it has left the pool, so the next request connects afresh (its subscriptions are gone).
   */
  onDropped(listener: (name: string) => void): void;
  close(): Promise<void>;
}

/**
 * Finds the call a legacy `elicitation/create` serves. The wire links it when the request came on that call's
 * HTTP response stream, or names that call's progress token in its `_meta`; otherwise, with one call open it is
 * that one, and with several it is a guess: the question is marked ambiguous and lists every open call.
 */
function attribute(
  server: string,
  active: LegacyCall<unknown>[],
  params: Record<string, unknown>,
  link: LegacyLink,
  asker: 'mcpx' | undefined,
): Promise<WireElicitResult> {
  const open = active.filter((c) => !c.settled);
  const meta = params._meta && typeof params._meta === 'object' ? (params._meta as Record<string, unknown>) : {};
  for (const token of [link.streamOf, meta.progressToken]) {
    const linked = typeof token === 'string' ? open.find((c) => c.progressToken === token) : undefined;
    if (linked) return linked.ask(params, { asker });
  }
  const [only, ...others] = open;
  if (!only) throw new McpxError('CALL_FAILED', `${server} asked a question while no call was in flight`);
  if (!others.length) return only.ask(params, { asker });
  // A call already waiting on a question is less likely to be asking another (questions asked together come
  // within milliseconds): the oldest call not yet asking, else the oldest.
  const pick = open.find((c) => !c.asking) ?? only;
  return pick.ask(params, { candidateCalls: open.map((c) => c.callId), asker });
}

/**
 * Whether a failed request shows the server does not speak the modern era: refused as a protocol matter
 * (unknown method, invalid request, unsupported version, no legacy session), so the request did not run.
 * A result the SDK could not read proves it only for a request that may run twice (a listing).
 */
function provesEraWrong(cause: unknown, idempotent: boolean): boolean {
  if (cause instanceof ProtocolError) {
    if (cause.code === -32601 || cause.code === -32600 || cause.code === -32022) return true;
    return cause.code === -32000 && /session|initiali[sz]/i.test(cause.message);
  }
  if (cause instanceof SdkHttpError) return cause.status === 400 || cause.status === 404 || cause.status === 405;
  if (cause instanceof SdkError) {
    if (cause.code === 'ERA_NEGOTIATION_FAILED' || cause.code === 'CONNECTION_CLOSED') return true;
    return idempotent && cause.code === 'INVALID_RESULT';
  }
  return false;
}

export function createConnections(options: ClientPoolOptions): Connections {
  const now = options.now ?? Date.now;
  const pool = new Map<string, Promise<Pooled>>();
  const routes = new Map<string, CallNotifications>();
  let closed = false;
  // Aborted by close: connects still in flight end at once (a server that never answers holds nothing up).
  const closing = new AbortController();
  // The config's `${VAR}` values, and each asked credential once read: scrubbed from every connect failure.
  const secretForms = new Map(options.config.secretForms ?? []);
  const elicitation = {
    form: Boolean(options.onElicit || options.answerLater),
    url: Boolean((options.openUrl || options.urlOpenedByAnswerer) && (options.onElicit || options.answerLater)),
  };

  // A server's own `timeoutMs` (config) wins over the instance default.
  const timeoutFor = (name: string): number =>
    (options.servers?.[name] ?? options.config.mcpServers[name])?.timeoutMs ?? options.requestTimeoutMs;

  const serverNames = (): string[] => [
    ...new Set([...Object.keys(options.config.mcpServers), ...Object.keys(options.servers ?? {})]),
  ];

  const holds = signInHoldsOf(options.auth);
  const get = (name: string): Promise<Pooled> => {
    if (closed) return Promise.reject(new McpxError('CALL_FAILED', 'this mcpx instance is closed'));
    // A call is asking someone to sign in to this server: a listing (or a resume) does not wait for their browser.
    // Until it asks (discovery, a token still good) the hold is only a connect, worth waiting for.
    const held = heldElsewhere(holds, name);
    if (held)
      return waitingSignIn(held).then(async (waiting) => {
        if (waiting) throw signInPending(name);
        await held.done.catch(() => undefined);
        return get(name);
      });
    const existing = pool.get(name);
    if (existing) return existing;
    const server = options.servers?.[name] ?? options.config.mcpServers[name];
    if (!server) {
      const known = serverNames();
      return Promise.reject(
        new McpxError(
          'SERVER_NOT_FOUND',
          `no server named "${name}"${known.length ? `; configured: ${known.join(', ')}` : '; no servers are configured'}${options.configSource ? ` (config: ${options.configSource})` : ''}`,
          {
            data: { server: name, known },
          },
        ),
      );
    }
    const active: LegacyCall<unknown>[] = [];
    const logging = new Set<string>();
    const opening = missingCredentials(name)
      .then((missing) => {
        if (missing.length) throw credentialsMissing(name, missing);
        return openConnection({
          name,
          server,
          ...(askedValues.has(name) ? { asked: askedValues.get(name)! } : {}),
          redact: (text) => redact(text, secretForms),
          clientInfo: options.clientInfo,
          elicitation,
          eraCache: options.eraCache,
          cwd: options.cwd,
          env: options.env,
          now,
          onLegacyElicit: (params, link) =>
            attribute(name, active, params, link, 'connect' in server && server.asksForMcpx ? 'mcpx' : undefined),
          onProgress: (token) => active.find((c) => c.progressToken === token)?.progress(),
          onNotification: (token, method, params) => routeNotification(routes.get(token), method, params),
          // Two or more asking at once: the message could be either's, so neither gets it.
          onUntiedLog: (params) => {
            if (logging.size === 1) routeNotification(routes.get([...logging][0]!), 'notifications/message', params);
          },
          ...(options.onResourceUpdated ? { onResourceUpdated: (uri: string) => options.onResourceUpdated!(name, uri) } : {}),
          ...(options.forward ? { forward: options.forward } : {}),
          ...(options.auth ? { auth: options.auth } : {}),
          // The person may sign in inside the first request: the question's TTL, then the browser's return.
          // Otherwise the server's own `timeoutMs`, else a default of seconds, bounds the probe and `initialize` together.
          ...(options.auth && !('connect' in server) && isHttpServer(server) && !isMachineGrant(server.oauth)
            ? { connectTimeoutMs: timeoutFor(name) + options.elicitTtlMs + SIGN_IN_RETURN_MS }
            : server.timeoutMs
              ? { connectTimeoutMs: server.timeoutMs }
              : {}),
          signal: closing.signal,
        });
      })
      .then((connection) => {
        const pooled: Pooled = { connection, active, logging, proven: false };
        opened.set(pooled, opening);
        // Ended under us (not by retire or close, which take it out of the pool first): out of the pool.
        const { client } = connection;
        const previous = client.onclose;
        client.onclose = () => {
          previous?.();
          if (closed || pool.get(name) !== opening) return;
          pool.delete(name);
          retired.add(connection);
          for (const listener of dropped) listener(name);
        };
        // A legacy Streamable HTTP session the server no longer knows (it restarted): `404` to the session id, which
        // the SDK tells as its event stream fails to reopen. The spec's answer is a new session: this one is dropped.
        const previousError = client.onerror;
        client.onerror = (error) => {
          previousError?.(error);
          const session = (client.transport as { sessionId?: string } | undefined)?.sessionId;
          if (connection.era === 'legacy' && session && error instanceof SdkHttpError && error.status === 404)
            void connection.close().catch(() => undefined);
        };
        return pooled;
      });
    pool.set(name, opening);
    opening.catch(() => pool.delete(name));
    return opening;
  };

  // Connections dropped from the pool while requests may still run on them: closed with the pool.
  const retired = new Set<Connection>();
  const dropped = new Set<(name: string) => void>();
  const retire = async (name: string, pooled: Pooled): Promise<void> => {
    await pooled.connection.forgetVerdict();
    if (pool.get(name) === opened.get(pooled)) pool.delete(name);
    retired.add(pooled.connection);
  };
  const opened = new WeakMap<Pooled, Promise<Pooled>>();

  // An era taken from the cache is on probation until a request succeeds on it.
  const onProbation = (pooled: Pooled): boolean =>
    pooled.connection.fromCache && !pooled.proven && pooled.connection.era === 'modern';

  /**
   * A cached modern verdict that went stale fails on the first request (how depends on the server). Any failure
   * on probation forgets the verdict, so the next connect probes again. When the failure also proves the era
   * wrong (the request was refused as a protocol matter, so nothing ran), the server is probed again now and the
   * request retried once, but only if the probe gives another era; otherwise the failure stands.
   */
  const onFailure = async <T>(
    name: string,
    pooled: Pooled,
    error: McpxError,
    retry: () => Promise<T>,
    idempotent: boolean,
  ): Promise<T> => {
    if (!onProbation(pooled)) throw error;
    await retire(name, pooled);
    if (!provesEraWrong(error.cause, idempotent)) throw error;
    const fresh = await get(name);
    if (fresh.connection.era === 'modern') throw error;
    return retry();
  };

  /**
   * A request succeeded. A result without `resultType` on probation is what a legacy server answers to a modern
   * request it does not understand as one: it stands (complete, per the spec), but the verdict is not trusted.
   */
  const onSuccess = async (name: string, pooled: Pooled): Promise<void> => {
    if (pooled.proven) return;
    if (onProbation(pooled) && pooled.connection.resultsWithoutType() > 0) return retire(name, pooled);
    pooled.proven = true;
  };

  let secretStore: Promise<SecretStore> | undefined;
  const secrets = (): Promise<SecretStore> =>
    (secretStore ??= (
      options.secrets ??
      (async () => (await import('../../secrets/index.js')).openSecretStore({ stateDir: stateDir(options.env) }))
    )());
  /** The values of each configured server's asked entries, once all are known in this process. */
  const askedValues = new Map<string, AskedValues>();

  /** The asked entries of a configured server that have no value yet, here or in the secret store. */
  const missingCredentials = async (name: string): Promise<AskedEntry[]> => {
    const server = options.servers?.[name] ? undefined : options.config.mcpServers[name];
    if (!server || askedValues.has(name)) return [];
    const entries = askedEntries(name, server);
    if (!entries.length) return [];
    const { values, missing } = await readAsked(entries, await secrets());
    if (!missing.length) askedValues.set(name, values);
    for (const [field, kept] of Object.entries(values) as Array<[string, Record<string, string>]>)
      for (const [key, value] of Object.entries(kept)) secretForms.set(value, secretStoreForm(`${field}.${key}`));
    return missing;
  };

  return {
    now,
    serverNames,
    timeoutFor,
    get,
    has: (name) => pool.has(name),
    holds,
    onProbation,
    onFailure,
    onSuccess,
    secrets,
    missingCredentials,
    routes,
    onDropped: (listener) => void dropped.add(listener),
    close: async () => {
      closed = true;
      closing.abort(new McpxError('CALL_FAILED', 'mcpx was closed while connecting'));
      const all = await Promise.allSettled([...pool.values()]);
      pool.clear();
      await Promise.all(
        all.map(async (entry) => {
          if (entry.status !== 'fulfilled') return;
          for (const call of [...entry.value.active])
            call.cancel(new McpxError('CALL_FAILED', 'mcpx was closed while the call was open'));
          await entry.value.connection.close().catch(() => undefined);
        }),
      );
      await Promise.all([...retired].map((connection) => connection.close().catch(() => undefined)));
      retired.clear();
    },
  };
}

/** A call cannot ask (a listing): the credentials must be in the secret store already. */
function credentialsMissing(server: string, missing: AskedEntry[]): McpxError {
  const names = missing.map((m) => `${m.ask} (${m.field}.${m.key})`).join(', ');
  return new McpxError(
    'SECRET_MISSING',
    `server "${server}" needs ${names} before it can start; call one of its tools to be asked (mcpx call ${server}.<tool>)`,
    {
      data: { server, missing: missing.map((m) => `${m.field}.${m.key}`) },
    },
  );
}

/** A call's progress or log message, to the call that wants it. */
function routeNotification(route: CallNotifications | undefined, method: string, params: Record<string, unknown>): void {
  if (!route) return;
  if (method === 'notifications/progress' && typeof params.progress === 'number') {
    const { progress, total, message } = params;
    route.onProgress?.({
      progress,
      ...(typeof total === 'number' ? { total } : {}),
      ...(typeof message === 'string' ? { message } : {}),
    });
  } else if (method === 'notifications/message' && typeof params.level === 'string') {
    route.onLog?.({
      level: params.level,
      data: params.data,
      ...(typeof params.logger === 'string' ? { logger: params.logger } : {}),
    });
  }
}
