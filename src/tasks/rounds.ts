/**
 * The two ways a call's round of questions is answered while they wait in the broker. Legacy: each answer goes
 * back on the open call (live.respond). Modern: once every question of the round is answered, the call is re-sent.
 */
import type { Broker } from '../broker/index.js';
import { toAnswer } from '../broker/index.js';
import { isMcpxError } from '../errors.js';
import { redact } from '../secrets/redact.js';
import type { Answer } from '../types.js';
import type { CallNotifications, InputRequiredOutcome, LiveCall } from '../client/index.js';
import type { CallOutcome, CallProgress, Continuation, TaskHost, TaskRecord, TaskResult } from './types.js';
import { takeOffers, type Receipts } from './delivery.js';
import { alongside } from './progress.js';

export const errorOf = (error: unknown): NonNullable<TaskRecord['error']> =>
  isMcpxError(error)
    ? { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) }
    : { code: 'CALL_FAILED', message: redact(error instanceof Error ? error.message : String(error)) };

export type LegacyWatch = ReturnType<typeof legacyWatch>;

/**
 * Legacy: each answer goes back on the open call as it arrives, once its receipt records that it does (an answer
 * offered by another process is taken then: `tasks/delivery.ts`). A call may have several questions waiting at
 * once (a new one makes `live.result` resolve while older ones still wait), so the watch spans rounds: an answer
 * goes to the newest LiveCall, which serves every question still waiting on the call.
 */
export function legacyWatch(
  broker: Broker,
  task: TaskRecord,
  signal: AbortSignal,
  receipts?: Receipts,
  /** A question the call went on without that another call took over (see `LegacyCall` heirs): not abandoned. */
  inherited: (id: string) => boolean = () => false,
) {
  const watching = new AbortController();
  const stop = (): void => watching.abort();
  signal.addEventListener('abort', stop, { once: true });
  const unanswered = new Set<string>();
  let live: LiveCall<TaskResult> | undefined;
  let trace = task.callId;
  return {
    unanswered,
    watch(outcome: InputRequiredOutcome<TaskResult>): Promise<CallOutcome<TaskResult>> {
      live = outcome.live!;
      trace = outcome.callId;
      // Another call's sign-in, joined: that call's holder delivers its answer (and abandons it, if ever); this
      // call only follows. Offering, delivering or abandoning it here could take the answer from its own call.
      if (outcome.joined) return live.result;
      for (const question of outcome.questions) {
        if (unanswered.has(question.id) || !task.questions.includes(question.id)) continue;
        unanswered.add(question.id);
        const offers = new AbortController();
        watching.signal.addEventListener('abort', () => offers.abort(), { once: true });
        if (receipts) void takeOffers(receipts, task, question.id, offers.signal).catch(() => undefined);
        broker
          .awaitAnswer(question.id, { signal: watching.signal })
          .then(async (stored) => {
            unanswered.delete(question.id);
            offers.abort();
            // The receipt first: an answerer waits for it, and a holder judged dead meanwhile must not deliver.
            if (receipts && !(await receipts.deliver(question.id, task))) return;
            try {
              live!.respond(question.id, toAnswer(stored));
            } catch {
              // The call already settled this question (its own expiry, or it ended): nothing left to deliver.
              return;
            }
            await broker.recordResumed({
              elicit: question.id,
              trace,
              // The question's own call is the parent when the task has none (as the stored question's trace says).
              parent: task.parent ?? question.callId,
              session: task.session,
              server: question.server,
              tool: question.tool,
            });
          })
          // Aborted when the call ends; a failed audit write must not fail the call that already resumed.
          .catch(() => undefined);
      }
      return live.result;
    },
    /** The call is over: stop waiting, and retire the questions it went on without. */
    async end(): Promise<void> {
      watching.abort();
      signal.removeEventListener('abort', stop);
      for (const id of unanswered)
        if (!inherited(id)) await abandonQuietly(broker, id, 'the call finished before this question was answered');
    },
  };
}

export interface RoundDeps {
  broker: Broker;
  /** The mcpx instance that serves a session's calls. */
  host: (session: string) => Promise<TaskHost>;
  /** Told of the call id each re-send gets, before its questions are marked resumed. */
  onCall: (callId: string, task: TaskRecord) => void;
  /** Told of the progress the server reports while a re-sent round runs. */
  onProgress?: (task: TaskRecord, progress: CallProgress) => void;
  /** Where the task's caller wants the call's notifications (in this process only): every round's, not just the first's. */
  notificationsOf?: (task: TaskRecord) => CallNotifications | undefined;
  /**
   * Takes the round's audit writes (elicit.resumed) still in flight, for the caller to await with its own write of
   * the next stop (the two at once, before the stop is reported). Absent: the round awaits them itself.
   */
  defer?: (task: TaskRecord, writes: Promise<void>) => void;
}

/** Answers one modern round: waits for every answer, then re-sends the call with them. */
export async function modernRound(
  { broker, host: hostOf, onCall, onProgress, notificationsOf, defer }: RoundDeps,
  task: TaskRecord,
  continuation: Continuation,
  signal: AbortSignal,
): Promise<CallOutcome<TaskResult>> {
  // Questions a handler already answered in this round ride in the continuation; wait only for the rest.
  const waiting = continuation.questions.filter((q) => continuation.answered?.[q.id] === undefined);
  const stored = await Promise.all(waiting.map((q) => broker.awaitAnswer(q.id, { signal })));
  const answers: Record<string, Answer> = {};
  waiting.forEach((q, i) => (answers[q.id] = toAnswer(stored[i]!)));
  const host = await hostOf(task.session);
  const notifications = alongside(
    notificationsOf?.(task),
    onProgress ? (progress: CallProgress) => onProgress(task, progress) : undefined,
  );
  const next = await host.resume<TaskResult>(continuation, answers, {
    signal,
    ...(task.elicitTtlMs ? { elicitTtlMs: task.elicitTtlMs } : {}),
    ...(notifications ? { notifications } : {}),
  });
  onCall(next.callId, task);
  const resumed = (async () => {
    for (const q of continuation.questions) {
      // The round's questions name their server and tool: nothing is read back to write the event.
      await broker.recordResumed({
        elicit: q.id,
        trace: next.callId,
        parent: continuation.callId,
        session: task.session,
        server: q.server,
        tool: q.tool,
      });
    }
  })();
  if (defer) defer(task, resumed);
  else await resumed;
  return next;
}

/**
 * A round's audit writes still in flight, by task (RoundDeps.defer): the task's next stop is stored at the same
 * time (`with`), and both have landed before that stop is reported; a failed one fails the call, as before.
 */
export function roundAudits() {
  const inFlight = new Map<string, Promise<void>>();
  const take = (task: TaskRecord): Promise<void> | undefined => {
    const writes = inFlight.get(task.id);
    inFlight.delete(task.id);
    return writes;
  };
  return {
    defer(task: TaskRecord, writes: Promise<void>): void {
      // Handled here too: a runner closing before the next stop never awaits it.
      writes.catch(() => undefined);
      inFlight.set(task.id, writes);
    },
    with: async (task: TaskRecord, write: Promise<void>): Promise<void> => void (await Promise.all([write, take(task)])),
    /** The round failed: its audit is settled and dropped. */
    drop: async (task: TaskRecord): Promise<void> => void (await take(task)?.catch(() => undefined)),
  };
}

/** Retires a question still pending; one already answered or gone is left as it is. */
export async function abandonQuietly(broker: Broker, id: string, reason: string): Promise<void> {
  try {
    const request = await broker.get(id);
    if (request?.state === 'pending') await broker.abandon(id, reason);
  } catch {
    // Already answered or gone: nothing to abandon.
  }
}
