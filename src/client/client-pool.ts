/**
 * The connections of one mcpx instance, opened lazily per server and reused, and the call API on top of them:
 * listTools, callTool (complete or input-required, never an error for a question) and resume.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { ProtocolError, SdkError, SdkHttpError } from '@modelcontextprotocol/client';
import { McpxError } from '../errors.js';
import { newCallId } from '../ids.js';
import type { Answer, ElicitHandler, Era } from '../types.js';
import type { McpxConfig } from '../config/schema.js';
import { openConnection, type Connection, type LegacyLink, type ServerConnector } from './connection.js';
import type { EraCache } from './era-cache.js';
import { LegacyCall } from './legacy-call.js';
import { callError, inputResponsesFor, parseContinuation, runModernCall } from './modern-call.js';
import type { CallOptions, CallOutcome, Continuation } from './outcome.js';
import type { WireElicitResult } from './seam.js';

// setTimeout's ceiling: the SDK's own request timeout is effectively off; LegacyCall's watchdog does the job.
const NO_SDK_TIMEOUT = 2_147_483_647;

export interface ClientPoolOptions {
  config: McpxConfig;
  /** Servers the host wires itself (custom or in-memory transports), beside the configured ones. */
  servers?: Record<string, ServerConnector>;
  cwd: string;
  env: Record<string, string | undefined>;
  onElicit?: ElicitHandler;
  openUrl?: (url: string) => Promise<boolean>;
  answerLater?: boolean;
  elicitTtlMs: number;
  requestTimeoutMs: number;
  eraCache: EraCache;
  clientInfo: { name: string; version: string };
  /** Said in SERVER_NOT_FOUND errors: where the config came from. */
  configSource?: string;
  now?: () => number;
}

export interface ClientPool {
  serverNames(): string[];
  /** The era the server's connection speaks (connects if needed). */
  era(server: string): Promise<Era>;
  listTools(server: string): Promise<Tool[]>;
  callTool(server: string, tool: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome>;
  resume(continuation: Continuation | unknown, answers: Record<string, Answer>, options?: { signal?: AbortSignal }): Promise<CallOutcome>;
  close(): Promise<void>;
}

interface Pooled {
  connection: Connection;
  /** Legacy calls in flight: a server's `elicitation/create` belongs to one of them. */
  active: LegacyCall[];
  /** A request has succeeded on it: its era is proven. */
  proven: boolean;
}

/**
 * Finds the call a legacy `elicitation/create` serves. The wire links it when the request came on that call's
 * HTTP response stream, or names that call's progress token in its `_meta`; otherwise, with one call open it is
 * that one, and with several it is a guess: the question is marked ambiguous and lists every open call.
 */
function attribute(server: string, active: LegacyCall[], params: Record<string, unknown>, link: LegacyLink): Promise<WireElicitResult> {
  const open = active.filter((c) => !c.settled);
  const meta = params._meta && typeof params._meta === 'object' ? (params._meta as Record<string, unknown>) : {};
  for (const token of [link.streamOf, meta.progressToken]) {
    const linked = typeof token === 'string' ? open.find((c) => c.progressToken === token) : undefined;
    if (linked) return linked.ask(params);
  }
  const [only, ...others] = open;
  if (!only) throw new McpxError('CALL_FAILED', `${server} asked a question while no call was in flight`);
  if (!others.length) return only.ask(params);
  // A call already waiting on a question is less likely to be asking another (questions asked together come
  // within milliseconds): the oldest call not yet asking, else the oldest.
  const pick = open.find((c) => !c.asking) ?? only;
  return pick.ask(params, open.map((c) => c.callId));
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

export function createClientPool(options: ClientPoolOptions): ClientPool {
  const now = options.now ?? Date.now;
  const pool = new Map<string, Promise<Pooled>>();
  let closed = false;
  const elicitation = { form: Boolean(options.onElicit || options.answerLater), url: Boolean(options.openUrl && (options.onElicit || options.answerLater)) };

  // A server's own `timeoutMs` (config) wins over the instance default.
  const timeoutFor = (name: string): number => (options.servers?.[name] ?? options.config.mcpServers[name])?.timeoutMs ?? options.requestTimeoutMs;

  const serverNames = (): string[] => [...new Set([...Object.keys(options.config.mcpServers), ...Object.keys(options.servers ?? {})])];

  const get = (name: string): Promise<Pooled> => {
    if (closed) return Promise.reject(new McpxError('CALL_FAILED', 'this mcpx instance is closed'));
    const existing = pool.get(name);
    if (existing) return existing;
    const server = options.servers?.[name] ?? options.config.mcpServers[name];
    if (!server) {
      const known = serverNames();
      return Promise.reject(
        new McpxError('SERVER_NOT_FOUND', `no server named "${name}"${known.length ? `; configured: ${known.join(', ')}` : '; no servers are configured'}${options.configSource ? ` (config: ${options.configSource})` : ''}`, {
          data: { server: name, known },
        }),
      );
    }
    const active: LegacyCall[] = [];
    const opening = openConnection({
      name,
      server,
      clientInfo: options.clientInfo,
      elicitation,
      eraCache: options.eraCache,
      cwd: options.cwd,
      env: options.env,
      now,
      onLegacyElicit: (params, link) => attribute(name, active, params, link),
      onProgress: (token) => active.find((c) => c.progressToken === token)?.progress(),
    }).then((connection) => {
      const pooled: Pooled = { connection, active, proven: false };
      opened.set(pooled, opening);
      return pooled;
    });
    pool.set(name, opening);
    opening.catch(() => pool.delete(name));
    return opening;
  };

  // Connections dropped from the pool while requests may still run on them: closed with the pool.
  const retired = new Set<Connection>();
  const retire = async (name: string, pooled: Pooled): Promise<void> => {
    await pooled.connection.forgetVerdict();
    if (pool.get(name) === opened.get(pooled)) pool.delete(name);
    retired.add(pooled.connection);
  };
  const opened = new WeakMap<Pooled, Promise<Pooled>>();

  // An era taken from the cache is on probation until a request succeeds on it.
  const onProbation = (pooled: Pooled): boolean => pooled.connection.fromCache && !pooled.proven && pooled.connection.era === 'modern';

  /**
   * A cached modern verdict that went stale fails on the first request (how depends on the server). Any failure
   * on probation forgets the verdict, so the next connect probes again. When the failure also proves the era
   * wrong (the request was refused as a protocol matter, so nothing ran), the server is probed again now and the
   * request retried once, but only if the probe gives another era; otherwise the failure stands.
   */
  const onFailure = async <T>(name: string, pooled: Pooled, error: McpxError, retry: () => Promise<T>, idempotent: boolean): Promise<T> => {
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

  let calls = 0;
  const callTool = async (server: string, tool: string, args: Record<string, unknown> = {}, callOptions: CallOptions = {}): Promise<CallOutcome> => {
    const pooled = await get(server);
    const { connection } = pooled;
    const callId = callOptions.callId ?? newCallId();
    if (connection.era === 'modern') {
      return runModernCall({
        client: connection.client,
        server,
        tool,
        arguments: args,
        callId,
        ...(callOptions.parent !== undefined ? { parent: callOptions.parent } : {}),
        ...(options.onElicit ? { onElicit: options.onElicit } : {}),
        ...(options.openUrl ? { openUrl: options.openUrl } : {}),
        ttlMs: options.elicitTtlMs,
        requestTimeoutMs: timeoutFor(server),
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        now,
      }).then(
        async (outcome) => {
          await onSuccess(server, pooled);
          return outcome;
        },
        (error: unknown) => onFailure(server, pooled, callError(server, tool, error, false), () => callTool(server, tool, args, { ...callOptions, callId }), false),
      );
    }
    const call = new LegacyCall({
      server,
      tool,
      arguments: args,
      callId,
      progressToken: `${callId}/${++calls}`,
      ...(options.onElicit ? { onElicit: options.onElicit } : {}),
      ...(options.openUrl ? { openUrl: options.openUrl } : {}),
      ttlMs: options.elicitTtlMs,
      requestTimeoutMs: timeoutFor(server),
      now,
      mapError: (error) => callError(server, tool, error, false),
    });
    pooled.active.push(call);
    const onAbort = (): void => call.cancel(new McpxError('CALL_FAILED', `${server}.${tool} was aborted by the caller`, { data: { server, tool } }));
    callOptions.signal?.addEventListener('abort', onAbort, { once: true });
    const outcome = call.run((signal) =>
      connection.client
        .callTool({ name: tool, arguments: args, _meta: { progressToken: call.progressToken } }, { signal, timeout: NO_SDK_TIMEOUT })
        .finally(() => {
          pooled.active.splice(pooled.active.indexOf(call), 1);
          callOptions.signal?.removeEventListener('abort', onAbort);
        }) as never,
    );
    return outcome;
  };

  const listTools = async (server: string): Promise<Tool[]> => {
    const pooled = await get(server);
    let tools: Tool[];
    try {
      ({ tools } = await pooled.connection.client.listTools(undefined, { timeout: timeoutFor(server) }));
    } catch (error) {
      const mapped = new McpxError('CALL_FAILED', `listing the tools of "${server}" failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
        data: { server, ...(error instanceof ProtocolError ? { code: error.code } : {}) },
      });
      return onFailure(server, pooled, mapped, () => listTools(server), true);
    }
    await onSuccess(server, pooled);
    return tools;
  };

  const resume = async (value: Continuation | unknown, answers: Record<string, Answer>, resumeOptions: { signal?: AbortSignal } = {}): Promise<CallOutcome> => {
    const continuation = parseContinuation(value);
    // Checked before connecting: a bad answer costs nothing and changes nothing.
    const inputResponses = inputResponsesFor(continuation, answers);
    const pooled = await get(continuation.server);
    const { connection } = pooled;
    if (connection.era !== 'modern') {
      throw new McpxError('CONTINUATION_STALE', `server "${continuation.server}" now speaks the legacy era, which cannot resume a continuation: run the call again`, {
        data: { server: continuation.server, tool: continuation.tool },
      });
    }
    return runModernCall(
      {
        client: connection.client,
        server: continuation.server,
        tool: continuation.tool,
        arguments: continuation.arguments,
        callId: continuation.callId,
        ...(continuation.parent !== undefined ? { parent: continuation.parent } : {}),
        ...(options.onElicit ? { onElicit: options.onElicit } : {}),
        ...(options.openUrl ? { openUrl: options.openUrl } : {}),
        ttlMs: options.elicitTtlMs,
        requestTimeoutMs: timeoutFor(continuation.server),
        ...(resumeOptions.signal ? { signal: resumeOptions.signal } : {}),
        now,
      },
      { round: continuation.round, inputResponses, ...(continuation.requestState !== undefined ? { requestState: continuation.requestState } : {}) },
    );
  };

  return {
    serverNames,
    era: async (server) => (await get(server)).connection.era,
    listTools,
    callTool,
    resume,
    close: async () => {
      closed = true;
      const all = await Promise.allSettled([...pool.values()]);
      pool.clear();
      await Promise.all(
        all.map(async (entry) => {
          if (entry.status !== 'fulfilled') return;
          for (const call of [...entry.value.active]) call.cancel(new McpxError('CALL_FAILED', 'mcpx was closed while the call was open'));
          await entry.value.connection.close().catch(() => undefined);
        }),
      );
      await Promise.all([...retired].map((connection) => connection.close().catch(() => undefined)));
      retired.clear();
    },
  };
}
