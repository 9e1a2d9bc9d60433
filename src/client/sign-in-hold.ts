/**
 * A call to an OAuth-protected server that has no connection yet connects inside a held call, so a sign-in the
 * connect needs is that call's own url question (as credentials at first use are): the call comes back
 * input-required while the person signs in, and is made once the connection is open.
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
export async function connectAsking<R>(
  options: Omit<LegacyCallOptions, 'mapError'>,
  connect: () => Promise<unknown>,
  proceed: () => Promise<CallOutcome<R>>,
  signal?: AbortSignal,
): Promise<CallOutcome<R>> {
  const { server, tool, method } = options;
  const call = new LegacyCall<true>({
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
        // Work this connect left running (a stream) may need a sign-in after the call went on: not this call's.
        if (call.settled) throw new McpxError('SIGN_IN_REQUIRED', `server "${server}" needs a sign-in`, { data: { server } });
        return call.ask(params);
      },
      async () => {
        try {
          await connect();
          return true as const;
        } finally {
          signal?.removeEventListener('abort', onAbort);
        }
      },
    ),
  );
  return first.status === 'complete' ? proceed() : afterHeld(first, proceed);
}

/** A held outcome (credentials asked, a sign-in) as the call's own: once the holding work is done, the call is made. */
export function afterHeld<R>(
  outcome: InputRequiredOutcome<true>,
  proceed: () => Promise<CallOutcome<R>>,
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
        return (result ??= live.result.then((next) => (next.status === 'complete' ? proceed() : afterHeld(next, proceed))));
      },
    },
  };
}
