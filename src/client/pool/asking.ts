/**
 * What every request of the pool that may ask shares: who answers its questions, their TTL, the fields a held
 * request names (call, progress token, TTL), its cancel on the caller's abort, and a modern call's options.
 */
import { SIGN_IN_RETURN_MS } from '../../auth/provider.js';
import { McpxError } from '../../errors.js';
import type { ClientPoolOptions } from './pool.js';
import type { ModernCallOptions } from '../modern-call.js';
import type { CallOptions, CallOutcome } from '../outcome.js';
import type { Connections, Pooled } from './connections.js';
import type { RequestMeta } from './request-meta.js';
import { requestLabel, type AskingMethod } from '../requests.js';
import { LEAVE_MCP_TASK, leavesMcpTask } from '../mcp-tasks/index.js';

/** One request that may ask: its method, the server, the tool, prompt or uri it names, its arguments, the call's options. */
export interface AskingRequest {
  method: AskingMethod;
  server: string;
  target: string;
  args: Record<string, unknown>;
  callOptions: CallOptions;
}

/** The request a modern call makes, in its first round or resumed. */
export interface ModernRequest {
  server: string;
  pooled: Pooled;
  method: AskingMethod;
  target: string;
  args: Record<string, unknown>;
  callId: string;
  parent?: string | undefined;
  signal?: AbortSignal | undefined;
  elicitTtlMs?: number | undefined;
  meta?: Record<string, unknown> | undefined;
  /** Sent again inside a sign-in's hold: the person may take minutes, longer than a server may stay silent. */
  signingIn?: boolean | undefined;
  onRound?: CallOptions['onRound'];
}

/** Any request that may ask, as the pool runs it (credentials, sign-in, then the request in the connection's era). */
export type RunRequest = <R>(request: AskingRequest) => Promise<CallOutcome<R>>;

export type Asking = ReturnType<typeof createAsking>;

export function createAsking(
  options: ClientPoolOptions,
  connections: Pick<Connections, 'now' | 'timeoutFor'>,
  meta: RequestMeta,
) {
  const { now, timeoutFor } = connections;
  /** Who answers a call's questions here: the same for every call of this pool. */
  const answerers = {
    ...(options.onElicit ? { onElicit: options.onElicit } : {}),
    ...(options.openUrl ? { openUrl: options.openUrl } : {}),
    ...(options.urlOpenedByAnswerer ? { urlOpenedByAnswerer: true } : {}),
  };

  /**
   * A question's TTL: the tool's own `elicitTtl`, else the server's (the config wins over a caller), else the call's,
   * else the pool's. A prompt's or resource's request has only the server's.
   */
  const ttlFor = (server: string, method: AskingMethod, target: string, asked: number | undefined): number => {
    const entry = options.config.mcpServers[server];
    const tool = method === 'tools/call' ? entry?.tools?.[target]?.elicitTtl : undefined;
    return tool ?? entry?.elicitTtl ?? asked ?? options.elicitTtlMs;
  };

  let calls = 0;
  /** A progress token for a request of this call, unique in this pool. */
  const progressToken = (callId: string): string => `${callId}/${++calls}`;

  /** What every held request of a call names: the call, a progress token unique in this pool, the questions' TTL. */
  const heldRequest = ({ method, server, target, args, callOptions }: AskingRequest, callId: string) => ({
    server,
    tool: target,
    method,
    arguments: args,
    callId,
    progressToken: progressToken(callId),
    ttlMs: ttlFor(server, method, target, callOptions.elicitTtlMs),
    ...(options.maxQuestionsPerCall !== undefined ? { maxQuestions: options.maxQuestionsPerCall } : {}),
    now,
  });

  /** Cancels a held call when its caller aborts; returns the unhook. */
  const cancelOnAbort = (
    call: { cancel(reason: McpxError): void },
    { method, server, target, callOptions: { signal } }: AskingRequest,
  ): (() => void) => {
    const onAbort = (): void =>
      call.cancel(
        new McpxError('CALL_FAILED', `${requestLabel(server, target, method)} was aborted by the caller`, {
          data: { server, tool: target },
          // A holder letting an MCP task go says so: the task is left to the server, not cancelled.
          ...(leavesMcpTask(signal?.reason) ? { cause: LEAVE_MCP_TASK } : {}),
        }),
      );
    signal?.addEventListener('abort', onAbort, { once: true });
    return () => signal?.removeEventListener('abort', onAbort);
  };

  /** How long a request inside a sign-in's hold may wait: the person signs in between the answer and the browser's return. */
  const signInTimeout = (server: string): number => Math.max(timeoutFor(server), SIGN_IN_RETURN_MS);

  /** The options of a modern call: the same for its first round and a resume. */
  const modernOptions = (request: ModernRequest): ModernCallOptions => {
    const { server, pooled, method, target, args } = request;
    return {
      client: pooled.connection.client,
      server,
      tool: target,
      method,
      arguments: args,
      callId: request.callId,
      ...(request.parent !== undefined ? { parent: request.parent } : {}),
      ...answerers,
      ...(method === 'tools/call' ? meta.toolHeaders(server, pooled, target, args) : {}),
      ttlMs: ttlFor(server, method, target, request.elicitTtlMs),
      ...(options.maxQuestionsPerCall !== undefined ? { maxQuestions: options.maxQuestionsPerCall } : {}),
      requestTimeoutMs: request.signingIn ? signInTimeout(server) : timeoutFor(server),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.meta ? { meta: request.meta } : {}),
      ...(request.onRound ? { onRound: request.onRound } : {}),
      now,
    };
  };

  return { answerers, progressToken, heldRequest, cancelOnAbort, signInTimeout, modernOptions };
}

/** The request again under the call id it was given (a retry, or the call after what was asked first). */
export function withCallId(request: AskingRequest, callId: string): AskingRequest {
  return { ...request, callOptions: { ...request.callOptions, callId } };
}
