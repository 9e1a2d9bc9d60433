/**
 * A call to an OAuth-protected server that has no connection yet connects inside a held call, so a sign-in the
 * connect needs is that call's own url question (as credentials at first use are): the call comes back
 * input-required while the person signs in, and is made once the connection is open. A sign-in needed later, on
 * the open connection (the token revoked, a step-up to more scopes), is held the same way: the request that met it
 * is sent again inside the hold, where the sign-in can ask.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { SIGN_IN_META, signInErrorOf, withSignInAsker } from '../auth/sign-in/question.js';
import { McpxError } from '../errors.js';
import type { Question } from '../types.js';
import { LegacyCall, type LegacyCallOptions } from './legacy-call.js';
import type { CallOutcome, InputRequiredOutcome } from './outcome.js';
import { methodField, requestLabel, type AskingMethod } from './requests.js';

/**
 * A sign-in some call holds for a server (its connect, a step-up, a request sent again). Another request to the
 * server joins it, so there is one sign-in question per server at a time and nobody waits unseen in its connect.
 */
export interface HeldSignIn {
  /** The call holding it: its own request, made again once signed in, must not join itself. */
  callId: string;
  /** The hold's first stop; each input-required stop's `live.result` is the next. */
  stops: Promise<CallOutcome<unknown>>;
  /** Whether a question of the holding call still waits for its answer. */
  waits(questionId: string): boolean;
  /** The held work (connect, sign-in): fulfilled once signed in, rejected as the sign-in failed. */
  done: Promise<unknown>;
}

/** The sign-ins held per server: one map per Auth, so every session of a daemon sees the others' sign-ins. */
export type SignInHolds = Map<string, HeldSignIn>;

const holdsPerAuth = new WeakMap<object, SignInHolds>();

/** The holds of every pool on `auth` (a daemon's sessions): they join each other's sign-ins, never ask twice. */
export function signInHoldsOf(auth: object | undefined): SignInHolds {
  if (!auth) return new Map();
  let holds = holdsPerAuth.get(auth);
  if (!holds) holdsPerAuth.set(auth, (holds = new Map()));
  return holds;
}

/** The hold whose work runs here: its own connect and requests go ahead while it is held. */
const holding = new AsyncLocalStorage<HeldSignIn>();

/** Another call's sign-in held for `server`, which work outside that hold must not wait in (nor start a second). */
export function heldElsewhere(holds: SignInHolds, server: string): HeldSignIn | undefined {
  const held = holds.get(server);
  return held && holding.getStore() !== held ? held : undefined;
}

/** What a listing or a connect outside the hold gets: at once, rather than the wait for someone's browser. */
export function signInPending(server: string): McpxError {
  return new McpxError(
    'SIGN_IN_REQUIRED',
    `server "${server}" is waiting for a sign-in another call asked for: answer it (mcpx elicit list --all shows it), or call one of its tools to be given it`,
    { data: { server, pending: true } },
  );
}

/** The held sign-in's question still waiting for the person, or undefined once the hold asks nothing more. */
export async function waitingSignIn(held: HeldSignIn): Promise<{ question: Question; expiresAt: number } | undefined> {
  let stop = await held.stops.catch(() => undefined);
  while (stop?.status === 'input-required' && stop.live) {
    const question = stop.questions.find((q) => q.meta?.[SIGN_IN_META] === true && held.waits(q.id));
    if (question) return { question, expiresAt: stop.live.expiresAt };
    // Answered already, or the holder's own question (not a sign-in): the next stop may be a sign-in.
    stop = await stop.live.result.catch(() => undefined);
  }
  return undefined;
}

/**
 * Runs `connect` held open as the call (`options` as for its LegacyCall, whose `mapError` is replaced); once
 * connected, `proceed` makes the call itself. `signal` aborts the wait.
 */
export function connectAsking<R>(
  options: Omit<LegacyCallOptions, 'mapError'>,
  connect: () => Promise<unknown>,
  proceed: () => Promise<CallOutcome<R>>,
  signal?: AbortSignal,
  holds?: SignInHolds,
): Promise<CallOutcome<R>> {
  return holdAsking<true, R>(
    options,
    async () => {
      await connect();
      return true as const;
    },
    proceed,
    signal,
    holds,
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
  holds?: SignInHolds,
): Promise<CallOutcome<R>> {
  return holdAsking<CallOutcome<R>, R>(options, again, (outcome) => Promise.resolve(outcome), signal, holds);
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
  holds?: SignInHolds,
): Promise<CallOutcome<R>> {
  const { server, tool, method } = options;
  let working!: (work: Promise<T>) => void;
  const done = new Promise<T>((resolve) => (working = resolve));
  // Joiners read it; the holding call reports its own failure.
  done.catch(() => undefined);
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
  // Registered before anything is awaited: a request arriving while this hold discovers or registers joins it too.
  // Another call's hold stands (one sign-in per server); this one then only waits in its connect.
  const held: HeldSignIn | undefined =
    holds && !holds.has(server)
      ? { callId: options.callId, stops: undefined as never, waits: (id) => call.waits(id), done }
      : undefined;
  if (held) holds!.set(server, held);
  const work_ = (): Promise<T> => {
    const doing = work();
    working(doing);
    return doing;
  };
  const stops = call.run(() =>
    withSignInAsker(
      async (params) => {
        // Work this hold left running (a stream) may need a sign-in after the call went on: not this call's.
        if (call.settled) throw new McpxError('SIGN_IN_REQUIRED', `server "${server}" needs a sign-in`, { data: { server } });
        return call.ask(params, { asker: 'mcpx' });
      },
      async () => {
        try {
          return await (held ? holding.run(held, work_) : work_());
        } finally {
          // Released before the call goes on, so its own request (and every joiner's) finds no hold to wait in.
          if (held && holds!.get(server) === held) holds!.delete(server);
          signal?.removeEventListener('abort', onAbort);
        }
      },
    ),
  );
  if (held) held.stops = stops;
  const first = await stops;
  return first.status === 'complete' ? proceed(first.result) : afterHeld(first, proceed);
}

/**
 * A request to a server whose sign-in another call holds: it comes back at once with that sign-in's question (the
 * same `elc-` id: one question per server, one page to open) and is made once the sign-in is done. A sign-in that
 * failed fails it too; one that asked nothing here (the hold connected unasked) makes it at once.
 */
export async function joinSignIn<R>(
  held: HeldSignIn,
  request: { server: string; tool: string; method?: AskingMethod | undefined; callId: string; signal?: AbortSignal | undefined },
  again: () => Promise<CallOutcome<R>>,
): Promise<CallOutcome<R>> {
  const { server, tool, method, callId, signal } = request;
  const after = async (): Promise<CallOutcome<R>> => {
    await abortable(
      held.done.then(
        () => undefined,
        (error: unknown) => {
          // A sign-in refused is this request's answer too; the holder's other failures (its tool's error, its
          // caller gone) are not: the request is made, and asks again if it must.
          const signIn = signInErrorOf(error);
          if (signIn?.code === 'SIGN_IN_FAILED') throw signIn;
        },
      ),
      signal,
      request,
    );
    return again();
  };
  const waiting = await abortable(waitingSignIn(held), signal, request);
  if (!waiting) return after();
  let result: Promise<CallOutcome<R>> | undefined;
  return {
    status: 'input-required',
    callId,
    server,
    tool,
    ...methodField(method),
    questions: [waiting.question],
    joined: true,
    live: {
      expiresAt: waiting.expiresAt,
      respond: (id) => {
        throw new McpxError(
          'ELICITATION_NOT_FOUND',
          `question ${id} is the sign-in of another call to "${server}": answer it as its own question (mcpx elicit answer ${id}), or open its page`,
          { data: { id } },
        );
      },
      get result() {
        return (result ??= after());
      },
    },
  };
}

/** `work`, or CALL_FAILED as soon as the caller aborts. */
function abortable<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  { server, tool, method }: { server: string; tool: string; method?: AskingMethod | undefined },
): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void =>
      reject(
        new McpxError('CALL_FAILED', `${requestLabel(server, tool, method)} was aborted by the caller`, {
          data: { server, tool },
        }),
      );
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
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
