/**
/**
 * The pool's requests that may ask (tool calls, prompts, resource reads) and their resume: what is asked before a
 * server starts (before-start.ts), then the request in the connection's era (send.ts). What they share is in
 * asking.ts; the relay `mcpx serve` uses in relay.ts; what a modern request carries in request-meta.ts.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { McpxError } from '../../errors.js';
import { fastPathsOn } from '../../fast/index.js';
import { newCallId } from '../../ids.js';
import type { Answer } from '../../types.js';
import type { ClientPool, ClientPoolOptions } from './pool.js';
import { inputResponsesFor, parseContinuation, runModernCall } from '../modern-call.js';
import type { CallOptions, CallOutcome, Continuation } from '../outcome.js';
import { createAsking, withCallId, type AskingRequest } from './asking.js';
import { createBeforeStart } from './before-start.js';
import type { Connections } from './connections.js';
import type { Listings } from './listings.js';
import { createRelay } from './relay.js';
import { createRequestMeta, wants } from './request-meta.js';
import { createSend } from './send.js';
import { notificationMeta } from '../requests.js';
import { needsSignIn, retryAsking } from '../sign-in-hold.js';

export type { AskingRequest } from './asking.js';

/** `resume` and `relay` as the pool offers them, and `run`, which its callTool, getPrompt and readResource share. */
export interface Requests extends Pick<ClientPool, 'resume' | 'relay'> {
  run<R>(request: AskingRequest): Promise<CallOutcome<R>>;
}

export function createRequests(options: ClientPoolOptions, connections: Connections, listings: Listings): Requests {
  const meta = createRequestMeta(connections, listings);
  const asking = createAsking(options, connections, meta);
  const { askCredentials, signsIn, joinable, join, connectSigningIn, scopedSignIn } = createBeforeStart(
    options,
    connections,
    asking,
    (request) => run(request),
  );
  const { send, signedIn } = createSend(connections, listings, meta, asking, (request) => run(request));

  /** One request that may ask (a tool call, a prompt, a resource read), in the era the connection speaks. */
  const run = async <R>(request: AskingRequest): Promise<CallOutcome<R>> => {
    const { server, callOptions } = request;
    const { signInOnly } = callOptions;
    const held = joinable(server, callOptions.callId);
    if (held) return join<R>(request, held);
    if (typeof signInOnly === 'object' && signsIn(server)) return scopedSignIn<R>(request, signInOnly.scope);
    if (!connections.has(server)) {
      const missing = await connections.missingCredentials(server);
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
        { ...asking.heldRequest(request, callId), ...asking.answerers, requestTimeoutMs: asking.signInTimeout(server) },
        () => make(true),
        callOptions.signal,
        connections.holds,
      );
    });
  };

  const resume = async <R = CallToolResult>(
    value: Continuation | unknown,
    answers: Record<string, Answer>,
    resumeOptions: Pick<CallOptions, 'signal' | 'elicitTtlMs' | 'notifications'> = {},
  ): Promise<CallOutcome<R>> => {
    const continuation = parseContinuation(value, fastPathsOn(options.env));
    // Checked before connecting: a bad answer costs nothing and changes nothing.
    const inputResponses = inputResponsesFor(continuation, answers);
    const pooled = await connections.get(continuation.server);
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
    const token = wants(notifications) ? asking.progressToken(continuation.callId) : undefined;
    const untrack = token ? meta.follow(pooled, token, notifications!) : undefined;
    return runModernCall<R>(
      asking.modernOptions({
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
