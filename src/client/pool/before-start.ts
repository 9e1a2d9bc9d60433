/**
 * What the pool asks before a configured server starts or answers: missing credentials (asked as mcpx's own
 * questions of the call and kept), an OAuth sign-in (held as the call's question), another call's sign-in joined.
 */
import { isHttpServer } from '../../config/schema.js';
import { newCallId } from '../../ids.js';
import type { ClientPoolOptions } from './pool.js';
import { credentialParams, keepAnswer, type AskedEntry } from '../credentials.js';
import { LegacyCall } from '../legacy-call.js';
import type { CallOutcome } from '../outcome.js';
import { withCallId, type Asking, type AskingRequest, type RunRequest } from './asking.js';
import type { Connections } from './connections.js';
import { afterHeld, connectAsking, heldElsewhere, joinSignIn, type HeldSignIn } from '../sign-in-hold.js';

export type BeforeStart = ReturnType<typeof createBeforeStart>;

export function createBeforeStart(options: ClientPoolOptions, connections: Connections, asking: Asking, run: RunRequest) {
  const { get, timeoutFor, secrets, holds } = connections;
  const { answerers, heldRequest, cancelOnAbort, signInTimeout } = asking;

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

  return { askCredentials, signsIn, joinable, join, connectSigningIn, scopedSignIn };
}
