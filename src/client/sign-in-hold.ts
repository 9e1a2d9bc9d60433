/**
 * A call to an OAuth-protected server that has no connection yet connects inside a held call, so a sign-in the
 * connect needs is that call's own url question (as credentials at first use are): the call comes back
 * input-required while the person signs in, and is made once the connection is open. A sign-in needed later, on
 * the open connection (the token revoked, a step-up to more scopes), is held the same way: the request that met it
 * is sent again inside the hold, where the sign-in can ask.
 */
import { signInErrorOf, withSignInAsker } from '../auth/sign-in-question.js';
import { McpxError } from '../errors.js';
import { LegacyCall, type LegacyCallOptions } from './legacy-call.js';
import type { CallOutcome, InputRequiredOutcome } from './outcome.js';
import { requestLabel } from './requests.js';

/**
 * Runs `connect` held open as the call (`options` as for its LegacyCall, whose `mapError` is replaced); once
 * connected, `proceed` makes the call itself. `signal` aborts the wait.
 */
export function connectAsking<R>(
  options: Omit<LegacyCallOptions, 'mapError'>,
  connect: () => Promise<unknown>,
  proceed: () => Promise<CallOutcome<R>>,
  signal?: AbortSignal,
): Promise<CallOutcome<R>> {
  return holdAsking<true, R>(
    options,
    async () => {
      await connect();
      return true as const;
    },
    proceed,
    signal,
  );
}

/**
 * Sends again, held open as the call, a request that failed because its sign-in could not be asked where it was
 * made (no call was asking there): `again` is the request's outcome, made where the sign-in is this call's question.
 */
export function retryAsking<R>(
  options: Omit<LegacyCallOptions, 'mapError'>,
  again: () => Promise<CallOutcome<R>>,
  signal?: AbortSignal,
): Promise<CallOutcome<R>> {
  return holdAsking<CallOutcome<R>, R>(options, again, (outcome) => Promise.resolve(outcome), signal);
}

/** Whether a request failed for a sign-in that nobody could be asked for where it was made. */
export function needsSignIn(error: unknown): boolean {
  return signInErrorOf(error)?.code === 'SIGN_IN_REQUIRED';
}

async function holdAsking<T, R>(
  options: Omit<LegacyCallOptions, 'mapError'>,
  work: () => Promise<T>,
  proceed: (value: T) => Promise<CallOutcome<R>>,
  signal?: AbortSignal,
): Promise<CallOutcome<R>> {
  const { server, tool, method } = options;
  const call = new LegacyCall<T>({
    ...options,
    // A declined sign-in says so, not "cannot connect".
    mapError: (error) => signInErrorOf(error) ?? error,
  });
  const onAbort = (): void =>
    call.cancel(
      new McpxError('CALL_FAILED', `${requestLabel(server, tool, method)} was aborted by the caller`, {
        data: { server, tool },
      }),
    );
  signal?.addEventListener('abort', onAbort, { once: true });
  const first = await call.run(() =>
    withSignInAsker(
      async (params) => {
        // Work this hold left running (a stream) may need a sign-in after the call went on: not this call's.
        if (call.settled) throw new McpxError('SIGN_IN_REQUIRED', `server "${server}" needs a sign-in`, { data: { server } });
        return call.ask(params);
      },
      async () => {
        try {
          return await work();
        } finally {
          signal?.removeEventListener('abort', onAbort);
        }
      },
    ),
  );
  return first.status === 'complete' ? proceed(first.result) : afterHeld(first, proceed);
}

/** A held outcome (credentials asked, a sign-in) as the call's own: once the holding work is done, the call is made. */
export function afterHeld<T, R>(
  outcome: InputRequiredOutcome<T>,
  proceed: (value: T) => Promise<CallOutcome<R>>,
): InputRequiredOutcome<R> {
  const live = outcome.live!;
  let result: Promise<CallOutcome<R>> | undefined;
  const { questions, callId, server, tool } = outcome;
  return {
    status: 'input-required',
    callId,
    server,
    tool,
    ...(outcome.method ? { method: outcome.method } : {}),
    questions,
    live: {
      expiresAt: live.expiresAt,
      respond: (id, answer) => live.respond(id, answer),
      get result() {
        return (result ??= live.result.then((next) =>
          next.status === 'complete' ? proceed(next.result) : afterHeld(next, proceed),
        ));
      },
    },
  };
}
