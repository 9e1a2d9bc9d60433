/**
 * The pool's requests that may ask (tool calls, prompts, resource reads) in the era the connection speaks, their
 * resume, and what is asked before a configured server starts (credentials, a sign-in). The relay `mcpx serve`
 * uses is in relay.ts; what a modern request carries (notification routing, param headers) in request-meta.ts.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { SIGN_IN_RETURN_MS } from '../../auth/provider.js';
import { isHttpServer } from '../../config/schema.js';
import { McpxError } from '../../errors.js';
import { newCallId } from '../../ids.js';
import type { Answer } from '../../types.js';
import type { ClientPool, ClientPoolOptions } from './pool.js';
import { credentialParams, keepAnswer, type AskedEntry } from '../credentials.js';
import { LegacyCall } from '../legacy-call.js';
import { callError, inputResponsesFor, parseContinuation, runModernCall, type ModernCallOptions } from '../modern-call.js';
import type { CallOptions, CallOutcome, Continuation } from '../outcome.js';
import type { Connections, Pooled } from './connections.js';
import type { Listings } from './listings.js';
import { createRelay } from './relay.js';
import { createRequestMeta, wants } from './request-meta.js';
import { legacyRequest, notificationMeta, requestLabel, type AskingMethod } from '../requests.js';
import {
  afterHeld,
  connectAsking,
  heldElsewhere,
  joinSignIn,
  needsSignIn,
  retryAsking,
  type HeldSignIn,
} from '../sign-in-hold.js';

/** `resume` and `relay` as the pool offers them, and `run`, which its callTool, getPrompt and readResource share. */
export interface Requests extends Pick<ClientPool, 'resume' | 'relay'> {
  run<R>(request: AskingRequest): Promise<CallOutcome<R>>;
}

/** One request that may ask: its method, the server, the tool, prompt or uri it names, its arguments, the call's options. */
export interface AskingRequest {
  method: AskingMethod;
  server: string;
  target: string;
  args: Record<string, unknown>;
  callOptions: CallOptions;
}

/** The request a modern call makes, in its first round or resumed. */
interface ModernRequest {
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

export function createRequests(options: ClientPoolOptions, connections: Connections, listings: Listings): Requests {
  const { now, get, timeoutFor, onFailure, onSuccess, secrets, missingCredentials, routes } = connections;
  const { listTools } = listings;
  const meta = createRequestMeta(connections, listings);
  const { follow, toolHeaders } = meta;
  /** Who answers a call's questions here: the same for every call of this pool. */
  const answerers = {
    ...(options.onElicit ? { onElicit: options.onElicit } : {}),
    ...(options.openUrl ? { openUrl: options.openUrl } : {}),
    ...(options.urlOpenedByAnswerer ? { urlOpenedByAnswerer: true } : {}),
  };

  /** A question's TTL: the server's own `elicitTtl` (the config wins over a caller), else the call's, else the pool's. */
  const ttlFor = (server: string, asked: number | undefined): number =>
    options.config.mcpServers[server]?.elicitTtl ?? asked ?? options.elicitTtlMs;

  let calls = 0;
  /** What every held request of a call names: the call, a progress token unique in this pool, the questions' TTL. */
  const heldRequest = ({ method, server, target, args, callOptions }: AskingRequest, callId: string) => ({
    server,
    tool: target,
    method,
    arguments: args,
    callId,
    progressToken: `${callId}/${++calls}`,
    ttlMs: ttlFor(server, callOptions.elicitTtlMs),
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
        }),
      );
    signal?.addEventListener('abort', onAbort, { once: true });
    return () => signal?.removeEventListener('abort', onAbort);
  };

  /**
   * Asks for the missing credentials as mcpx's own questions of the call, held open like a legacy call's (so
   * every surface sees and answers them as any other), keeps them, then makes the call.
   */
  const askCredentials = async <R>(request: AskingRequest, missing: AskedEntry[]): Promise<CallOutcome<R>> => {
    const { server, callOptions } = request;
    const callId = callOptions.callId ?? newCallId();
    const call = new LegacyCall<true>({
      ...heldRequest(request, callId),
      ...(options.onElicit ? { onElicit: options.onElicit } : {}),
      requestTimeoutMs: timeoutFor(server),
      mapError: (error) => error,
    });
    const unhook = cancelOnAbort(call, request);
    const collected = call.run(async () => {
      try {
        const store = await secrets();
        for (const entry of missing)
          await keepAnswer(
            server,
            entry,
            await call.ask(credentialParams(server, entry), {
              asker: 'mcpx',
              ...(entry.secret ? { secret: entry.ref } : {}),
            }),
            store,
          );
        return true as const;
      } finally {
        unhook();
      }
    });
    const proceed = (): Promise<CallOutcome<R>> => run<R>(withCallId(request, callId));
    const first = await collected;
    return first.status === 'complete' ? proceed() : afterHeld(first, proceed);
  };

  /** An http server reached through OAuth: its first connect may need a sign-in, asked as the call's question. */
  const signsIn = (name: string): boolean => {
    const server = options.servers?.[name] ? undefined : options.config.mcpServers[name];
    return Boolean(options.auth && server && isHttpServer(server));
  };
  const signInTimeout = (server: string): number => Math.max(timeoutFor(server), SIGN_IN_RETURN_MS);
  const { holds } = connections;
  /** Another call's sign-in to this server, which the request joins rather than wait unseen in its connect. */
  const joinable = (server: string, callId: string | undefined): HeldSignIn | undefined => {
    const held = signsIn(server) ? heldElsewhere(holds, server) : undefined;
    return held && held.callId !== callId ? held : undefined;
  };
  const join = <R>(request: AskingRequest, held: HeldSignIn): Promise<CallOutcome<R>> => {
    const { server, target, method, callOptions } = request;
    const callId = callOptions.callId ?? newCallId();
    return joinSignIn<R>(held, { server, tool: target, method, callId, signal: callOptions.signal }, () =>
      run<R>(withCallId(request, callId)),
    );
  };
  const connectSigningIn = <R>(request: AskingRequest): Promise<CallOutcome<R>> => {
    const { server, callOptions } = request;
    const callId = callOptions.callId ?? newCallId();
    return connectAsking<R>(
      {
        ...heldRequest(request, callId),
        ...answerers,
        // The person signs in between the answer and the browser's return: longer than a server may stay silent.
        requestTimeoutMs: signInTimeout(server),
      },
      () => get(server),
      () => run<R>(withCallId(request, callId)),
      callOptions.signal,
      holds,
    );
  };

  /** A step-up another process met: a fresh sign-in for its scopes, held as this call (its question), then as signed in. */
  const scopedSignIn = <R>(request: AskingRequest, scope: string): Promise<CallOutcome<R>> => {
    const { server, callOptions } = request;
    const callId = callOptions.callId ?? newCallId();
    const config = options.config.mcpServers[server]!;
    return connectAsking<R>(
      { ...heldRequest(request, callId), ...answerers, requestTimeoutMs: signInTimeout(server) },
      () => (isHttpServer(config) ? options.auth!.signInForScope(server, config, scope) : Promise.resolve()),
      () => run<R>(withCallId({ ...request, callOptions: { ...callOptions, signInOnly: true } }, callId)),
      callOptions.signal,
      holds,
    );
  };

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
      ...(method === 'tools/call' ? toolHeaders(server, pooled, target, args) : {}),
      ttlMs: ttlFor(server, request.elicitTtlMs),
      ...(options.maxQuestionsPerCall !== undefined ? { maxQuestions: options.maxQuestionsPerCall } : {}),
      requestTimeoutMs: request.signingIn ? signInTimeout(server) : timeoutFor(server),
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.meta ? { meta: request.meta } : {}),
      ...(request.onRound ? { onRound: request.onRound } : {}),
      now,
    };
  };

  /** One request that may ask (a tool call, a prompt, a resource read), in the era the connection speaks. */
  const run = async <R>(request: AskingRequest): Promise<CallOutcome<R>> => {
    const { server, callOptions } = request;
    const { signInOnly } = callOptions;
    const held = joinable(server, callOptions.callId);
    if (held) return join<R>(request, held);
    if (typeof signInOnly === 'object' && signsIn(server)) return scopedSignIn<R>(request, signInOnly.scope);
    if (!connections.has(server)) {
      const missing = await missingCredentials(server);
      if (missing.length) return askCredentials<R>(request, missing);
      // Another call may have started its sign-in while the credentials were read.
      const meanwhile = joinable(server, callOptions.callId);
      if (meanwhile) return join<R>(request, meanwhile);
      if (signsIn(server)) return connectSigningIn<R>(request);
    }
    const callId = callOptions.callId ?? newCallId();
    const make = (signingIn: boolean): Promise<CallOutcome<R>> =>
      callOptions.signInOnly ? signedIn<R>(request, callId) : send<R>(withCallId(request, callId), callId, signingIn);
    const first = make(false);
    if (!signsIn(server)) return first;
    // The open connection's token was refused and the sign-in could not ask there: sent once more, held as this
    // call, so the sign-in is its question; the request then goes out on the fresh token.
    return first.catch((error: unknown) => {
      if (!needsSignIn(error)) throw error;
      // Another call met the refusal first and is asking: one sign-in, which this request joins.
      const other = joinable(server, callId);
      if (other) return join<R>(withCallId(request, callId), other);
      return retryAsking<R>(
        { ...heldRequest(request, callId), ...answerers, requestTimeoutMs: signInTimeout(server) },
        () => make(true),
        callOptions.signal,
        holds,
      );
    });
  };

  /** A sign-in-only request on the open connection: a fresh listing proves the token (a refused one signs in again). */
  const signedIn = async <R>({ server, target }: AskingRequest, callId: string): Promise<CallOutcome<R>> => {
    const tools = await listTools(server, { refresh: true });
    const text = `signed in to "${server}" (${tools.length} tool${tools.length === 1 ? '' : 's'})`;
    return { status: 'complete', callId, server, tool: target, result: { content: [{ type: 'text', text }] } as R };
  };

  /** The request on the server's connection; `signingIn` when it is sent again inside a sign-in's hold. */
  const send = async <R>(request: AskingRequest, callId: string, signingIn = false): Promise<CallOutcome<R>> => {
    const { method, server, target, args, callOptions } = request;
    const pooled = await get(server);
    const { connection } = pooled;
    const { notifications } = callOptions;
    if (connection.era === 'modern') {
      // A call that wants its notifications names itself with a progress token of ours (and asks for its log level).
      const token = wants(notifications) ? `${callId}/${++calls}` : undefined;
      const untrack = token ? follow(pooled, token, notifications!) : undefined;
      return runModernCall<R>(
        modernOptions({
          server,
          pooled,
          method,
          target,
          args,
          callId,
          parent: callOptions.parent,
          signal: callOptions.signal,
          elicitTtlMs: callOptions.elicitTtlMs,
          meta: token ? notificationMeta(token, notifications!) : undefined,
          signingIn,
          onRound: callOptions.onRound,
        }),
      )
        .finally(() => untrack?.())
        .then(
          async (outcome) => {
            await onSuccess(server, pooled);
            return outcome;
          },
          (error: unknown) =>
            onFailure(
              server,
              pooled,
              callError(server, target, error, false, method),
              () => run<R>(withCallId(request, callId)),
              false,
            ),
        );
    }
    const call: LegacyCall<R> = new LegacyCall<R>({
      ...heldRequest(request, callId),
      ...answerers,
      heirOf: (question) => {
        const open = pooled.active.filter(
          (c) => c !== (call as LegacyCall<unknown>) && c.open && question.candidateCalls?.includes(c.callId),
        );
        // As when it came: the oldest call not yet asking, else the oldest.
        return open.find((c) => !c.asking) ?? open[0];
      },
      requestTimeoutMs: signingIn ? signInTimeout(server) : timeoutFor(server),
      mapError: (error) => callError(server, target, error, false, method),
    });
    pooled.active.push(call as LegacyCall<unknown>);
    if (notifications) routes.set(call.progressToken, notifications);
    const unhook = cancelOnAbort(call, request);
    // Active (closing mcpx cancels it) and routed until it is over, through a -32042's question and the retry.
    return call.run(
      (signal) => legacyRequest(connection.client, method, target, args, call.progressToken, signal) as Promise<R>,
      () => {
        pooled.active.splice(pooled.active.indexOf(call as LegacyCall<unknown>), 1);
        routes.delete(call.progressToken);
        unhook();
      },
    );
  };

  const resume = async <R = CallToolResult>(
    value: Continuation | unknown,
    answers: Record<string, Answer>,
    resumeOptions: Pick<CallOptions, 'signal' | 'elicitTtlMs' | 'notifications'> = {},
  ): Promise<CallOutcome<R>> => {
    const continuation = parseContinuation(value);
    // Checked before connecting: a bad answer costs nothing and changes nothing.
    const inputResponses = inputResponsesFor(continuation, answers);
    const pooled = await get(continuation.server);
    const { connection } = pooled;
    if (connection.era !== 'modern') {
      throw new McpxError(
        'CONTINUATION_STALE',
        `server "${continuation.server}" now speaks protocol 2025-11-25, which cannot resume a 2026-07-28 continuation: run the call again`,
        {
          data: { server: continuation.server, tool: continuation.tool },
        },
      );
    }
    const { notifications } = resumeOptions;
    const token = wants(notifications) ? `${continuation.callId}/${++calls}` : undefined;
    const untrack = token ? follow(pooled, token, notifications!) : undefined;
    return runModernCall<R>(
      modernOptions({
        server: continuation.server,
        pooled,
        method: continuation.method ?? 'tools/call',
        target: continuation.tool,
        args: continuation.arguments,
        callId: continuation.callId,
        parent: continuation.parent,
        signal: resumeOptions.signal,
        elicitTtlMs: resumeOptions.elicitTtlMs,
        meta: token ? notificationMeta(token, notifications!) : undefined,
      }),
      {
        round: continuation.round,
        inputResponses,
        ...(continuation.requestState !== undefined ? { requestState: continuation.requestState } : {}),
      },
    ).finally(() => untrack?.());
  };

  return { run, resume, relay: createRelay(connections, meta) };
}

/** The request again under the call id it was given (a retry, or the call after what was asked first). */
function withCallId(request: AskingRequest, callId: string): AskingRequest {
  return { ...request, callOptions: { ...request.callOptions, callId } };
}
