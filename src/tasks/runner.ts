/**
 * The task runner: drives a call to completion while its questions wait in the broker.
 * callTool (the pipeline is the host's onElicit) -> input-required: store the task and its questions, then await
 * each answer in the broker. Legacy: the answer goes back on the open call (live.respond). Modern: once every
 * question of the round is answered, the call is re-sent (host.resume), which may ask again.
 * Expiry is the broker answering cancel, so cancel reaches the server in both eras.
 */
import type { ElicitRequest } from '../broker/index.js';
import type { StoreBroker } from '../broker/index.js';
import { newCallId, newTaskId } from '../ids.js';
import type { Question } from '../types.js';
import { questionOf } from '../broker/index.js';
import { withProgress } from './progress.js';
import type { CallOutcome, Continuation, TaskRecord, TaskResult, TaskStep } from './types.js';
import type { CallNotifications } from '../client/index.js';
import { abandonQuietly, errorOf, legacyWatch, modernRound, roundAudits, type LegacyWatch, type RoundDeps } from './rounds.js';
import { heldBy, receiptsOf } from './delivery.js';
import type { TaskRunner, TaskRunnerOptions } from './runner-types.js';

export type { SessionSource, StartInput, TaskRunner, TaskRunnerOptions } from './runner-types.js';

interface Driving {
  task: TaskRecord;
  done: Promise<void>;
  abort: AbortController;
  /** Reports the call's first stop (the caller's 202 or 200); later calls do nothing. */
  first: (step: TaskStep) => void;
  /** Whether the first stop has been reported. */
  reported: boolean;
}

/**
 * The record as it stands, for a write or a caller's step: a copy of what the runner changes in place (the top level,
 * the id lists). What it holds (arguments, continuation, result, error) is only ever replaced, so it is shared, not
 * deep-copied (a deep copy per write and per stop was most of the runner's own cost of a question's round).
 */
const snapshot = (task: TaskRecord): TaskRecord => ({ ...task, questions: [...task.questions], waitingOn: [...task.waitingOn] });

/** A modern task's record at a stop on its round's one question, as drive() would store it there. */
const stopRecord = (record: TaskRecord, round: Continuation): Partial<TaskRecord> => {
  const id = round.questions[0]!.id;
  const questions = record.questions.includes(id) ? record.questions : [...record.questions, id];
  return { state: 'input-required', era: 'modern', questions, waitingOn: [id], continuation: round };
};

export function createTaskRunner(options: TaskRunnerOptions): TaskRunner {
  const { broker, store, receipts = receiptsOf(options.broker) } = options;
  const now = options.clock ?? Date.now;
  const pid = options.pid ?? 0;
  const driving = new Map<string, Driving>();
  const callToTask = new Map<string, string>();
  /** Questions the client could not tie to one call, with the calls they may belong to. */
  const ambiguous = new Map<string, string[]>();
  const settled = new Map<string, Set<() => void>>();
  let closed = false;
  const lazy = options.persist === 'on-question';
  const holding = heldBy(options);
  /** Tasks written to the store at least once: from then on every change is. */
  const kept = new Set<string>();
  /** Each call's round as it stops if nothing here answers it, told by the call before its questions are asked. */
  const waitingRounds = new Map<string, Continuation>();
  /** A round whose stop was stored with its question (onOpen), exactly as the call stops there: not written twice. */
  const storedRounds = new Map<string, Continuation>();

  // The broker shows the runner each question before storing it: the record gets the task holding the asking call,
  // and a question the client could not tie to one call goes, once announced, to the other calls it may belong to.
  const toReport = new Map<string, { request: ElicitRequest; unsure: Driving[] }>();
  const audits = roundAudits();
  /** What each call's caller here wants of its notifications, for every round it drives (never stored). */
  const callerNotifications = new Map<string, CallNotifications>();
  const rounds: RoundDeps = {
    broker,
    host: (session) => options.host(session),
    onCall: (callId, task) => callToTask.set(callId, task.id),
    defer: audits.defer,
    ...(options.onProgress ? { onProgress: (task, progress) => options.onProgress!(task, progress, undefined) } : {}),
    notificationsOf: (task) => callerNotifications.get(task.id),
  };
  const offOpen = broker.onOpen(async (request, { waits }) => {
    const taskId = request.task ?? callToTask.get(request.trace);
    if (request.ambiguous) {
      ambiguous.set(request.id, request.candidateCalls ?? []);
      const candidates = new Set((request.candidateCalls ?? []).map((callId) => callToTask.get(callId)));
      const unsure = [...driving.values()].filter((d) => d.task.id !== taskId && candidates.has(d.task.id) && !d.reported);
      if (unsure.length) toReport.set(request.id, { request, unsure });
    }
    // A lazily kept task is stored no later than its first question names it: in the question's own write when
    // they share a store (its live-row entry too, unless another write of that row is pending), else before it.
    const held = taskId ? driving.get(taskId)?.task : undefined;
    if (held && lazy && !kept.has(held.id)) {
      const keyv = (broker as Partial<StoreBroker>).store?.keyv;
      const record = stamp(held);
      // The round's only question, left to wait: the call stops right here, so its record goes as it stands then.
      const round = waits ? waitingRounds.get(held.id) : undefined;
      const stops = round?.questions.length === 1 && round.questions[0]!.id === request.id;
      if (stops) Object.assign(record, stopRecord(record, round));
      const along = keyv && store.withQuestion ? store.withQuestion(record, keyv) : undefined;
      if (along) {
        if (stops) {
          // Its era is known now: a lease lost before its stop leaves this stored stop to whoever takes the call over.
          held.era = 'modern';
          storedRounds.set(held.id, round);
        }
        return {
          task: taskId!,
          rows: along.rows,
          ...(along.live ? { alongside: along.live } : {}),
          ...(along.landed ? { written: along.landed } : {}),
        };
      }
      await save(held);
    }
    return taskId ? { task: taskId } : undefined;
  });
  const offEvents = broker.subscribe((event) => {
    const report = event.kind === 'elicit.open' && event.elicit ? toReport.get(event.elicit) : undefined;
    if (!report) return;
    toReport.delete(report.request.id);
    // The question may be theirs: their callers hear of it now, marked ambiguous, instead of waiting out the TTL.
    for (const other of report.unsure) void reportAmbiguous(other, report.request);
  });

  /**
   * Whether a question still waiting when `task`'s call ended went on to another call it may belong to: the client
   * hands a guessed question to another candidate call still open, so it is not abandoned with this one.
   */
  const inherited = (id: string, task: TaskRecord): boolean =>
    (ambiguous.get(id) ?? []).some((callId) => {
      const other = callToTask.get(callId);
      return other !== undefined && other !== task.id && driving.has(other);
    });

  /** The record as stored now: from here on every change of the task is stored. */
  const stamp = (task: TaskRecord): TaskRecord => {
    task.updatedAt = now();
    kept.add(task.id);
    return snapshot(task);
  };
  const save = async (task: TaskRecord): Promise<void> => void (await store.put(stamp(task)));
  /** A change of a task that may never have asked: stored only if the task is. */
  const update = (task: TaskRecord): Promise<void> => (!lazy || kept.has(task.id) ? save(task) : Promise.resolve());

  const notify = (id: string): void => {
    for (const wake of settled.get(id) ?? []) wake();
    settled.delete(id);
  };

  /** Tells a call that has not stopped yet about a question that may be its own (its answer goes to the call the seam chose). */
  async function reportAmbiguous(other: Driving, request: ElicitRequest): Promise<void> {
    const { task } = other;
    Object.assign(task, { state: 'input-required', era: 'legacy' });
    if (!task.questions.includes(request.id)) task.questions.push(request.id);
    if (!task.waitingOn.includes(request.id)) task.waitingOn.push(request.id);
    await save(task).catch(() => undefined);
    other.first({ status: 'input-required', task: snapshot(task), questions: [questionOf(request)] });
  }

  /** Runs rounds until the call completes or fails; `first` resolves at the first stop. */
  async function drive(
    task: TaskRecord,
    outcome: Promise<CallOutcome<TaskResult>>,
    first: (step: TaskStep) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let legacy: LegacyWatch | undefined;
    try {
      let current = await outcome;
      for (;;) {
        if (current.status === 'complete') {
          Object.assign(task, { state: 'complete', result: current.result, waitingOn: [] });
          delete task.continuation;
          await audits.with(task, update(task));
          first({ status: 'complete', task: snapshot(task), result: current.result });
          return;
        }
        const questions: Question[] = current.questions;
        task.state = 'input-required';
        task.era = current.live ? 'legacy' : 'modern';
        for (const q of questions) if (!task.questions.includes(q.id)) task.questions.push(q.id);
        task.waitingOn = current.live
          ? [...new Set([...(legacy?.unanswered ?? []), ...questions.map((q) => q.id)])]
          : questions.map((q) => q.id);
        if (current.continuation) task.continuation = current.continuation;
        // Stored with its question already, exactly as it stands now (onOpen): not written a second time.
        const stored = current.continuation !== undefined && storedRounds.get(task.id) === current.continuation;
        storedRounds.delete(task.id);
        await audits.with(task, stored ? Promise.resolve() : save(task));
        first({ status: 'input-required', task: snapshot(task), questions });
        if (current.live) {
          legacy ??= legacyWatch(broker, task, signal, receipts, (id) => inherited(id, task));
          current = await legacy.watch(current);
        } else if (current.continuation) {
          current = await modernRound(rounds, task, current.continuation, signal);
        } else {
          throw new Error(`the call ${current.callId} stopped at a question with neither an open call nor a continuation`);
        }
        if (closed) return;
        if (current.status === 'complete' && legacy) await legacy.end();
        // Not stored: the next stop is, at once. Until then the stored round stays resumable, so a daemon dying
        // between the resume and that write leaves a call another daemon re-sends, not one marked failed.
        Object.assign(task, { state: 'running', waitingOn: [] });
      }
    } catch (error) {
      await legacy?.end();
      await audits.drop(task);
      if (closed && signal.aborted) return;
      Object.assign(task, { state: 'failed', error: errorOf(error), waitingOn: [] });
      delete task.continuation;
      await update(task).catch(() => undefined);
      first({ status: 'failed', task: snapshot(task), error: task.error! });
    }
  }

  function track(
    task: TaskRecord,
    run: (first: (step: TaskStep) => void, signal: AbortSignal) => Promise<void>,
  ): Promise<TaskStep> {
    let resolveFirst!: (step: TaskStep) => void;
    const firstStep = new Promise<TaskStep>((resolve) => (resolveFirst = resolve));
    const first = (step: TaskStep): void => {
      options.onStop?.(step);
      if (entry.reported) return;
      entry.reported = true;
      resolveFirst(step);
    };
    const abort = new AbortController();
    const entry: Driving = { task, abort, done: Promise.resolve(), first, reported: false };
    driving.set(task.id, entry);
    entry.done = run(first, abort.signal).finally(() => {
      driving.delete(task.id);
      kept.delete(task.id);
      waitingRounds.delete(task.id);
      storedRounds.delete(task.id);
      callerNotifications.delete(task.id);
      for (const [callId, taskId] of callToTask) if (taskId === task.id) callToTask.delete(callId);
      for (const id of task.questions)
        if (![...driving.values()].some((d) => d.task.questions.includes(id)) && !inherited(id, task)) ambiguous.delete(id);
      notify(task.id);
      // A close mid-round leaves the first stop unresolved only if nothing happened yet: report the task as it stands.
      if (!entry.reported)
        first({
          status: 'failed',
          task: snapshot(task),
          error: task.error ?? { code: 'DAEMON_UNAVAILABLE', message: 'the daemon stopped before the call finished' },
        });
    });
    return firstStep;
  }

  const runner: TaskRunner = {
    async start(input) {
      if (closed) throw new Error('the task runner is closed');
      const at = now();
      const task: TaskRecord = {
        id: newTaskId(),
        callId: newCallId(),
        ...(input.parent ? { parent: input.parent } : {}),
        server: input.server,
        tool: input.tool,
        ...(input.method ? { method: input.method } : {}),
        arguments: input.arguments,
        session: input.session,
        ...(input.elicit ? { elicit: input.elicit } : {}),
        ...(input.elicitTtlMs ? { elicitTtlMs: input.elicitTtlMs } : {}),
        state: 'running',
        questions: [],
        waitingOn: [],
        pid,
        ...holding,
        createdAt: at,
        updatedAt: at,
      };
      callToTask.set(task.callId, task.id);
      if (input.notifications) callerNotifications.set(task.id, input.notifications);
      if (!lazy) await save(task);
      return track(task, (first, signal) => {
        const outcome = options.host(input.session, input.sessionSource).then((host): Promise<CallOutcome<TaskResult>> => {
          const callOptions = {
            callId: task.callId,
            ...(input.parent ? { parent: input.parent } : {}),
            ...(input.elicitTtlMs ? { elicitTtlMs: input.elicitTtlMs } : {}),
            ...(input.signInOnly ? { signInOnly: input.signInOnly } : {}),
            // Only a caller who follows asks the server for progress; re-sent rounds always do (`task result` may follow).
            ...withProgress(input, task, options.onProgress),
            ...(lazy ? { onRound: (round: Continuation) => void waitingRounds.set(task.id, round) } : {}),
            signal,
          };
          if (input.method === 'prompts/get')
            return host.getPrompt(input.server, input.tool, input.arguments as Record<string, string>, callOptions);
          if (input.method === 'resources/read') return host.readResource(input.server, input.tool, callOptions);
          return host.callTool(input.server, input.tool, input.arguments, callOptions);
        });
        return drive(task, outcome, first, signal);
      });
    },

    get: (id) => store.get(id),

    async wait(id, waitOptions = {}) {
      const held = driving.get(id);
      if (held && waitOptions.timeoutMs !== 0) {
        await new Promise<void>((resolve) => {
          const timer = waitOptions.timeoutMs === undefined ? undefined : setTimeout(finish, waitOptions.timeoutMs);
          function finish(): void {
            if (timer) clearTimeout(timer);
            waitOptions.signal?.removeEventListener('abort', finish);
            settled.get(id)?.delete(finish);
            resolve();
          }
          waitOptions.signal?.addEventListener('abort', finish, { once: true });
          let wakers = settled.get(id);
          if (!wakers) settled.set(id, (wakers = new Set()));
          wakers.add(finish);
        });
      }
      return store.get(id);
    },

    taskOfCall: (callId) => callToTask.get(callId),
    isAmbiguous: (questionId) => ambiguous.has(questionId),

    elicitModeOf(callId) {
      const taskId = callToTask.get(callId);
      return taskId ? driving.get(taskId)?.task.elicit : undefined;
    },

    async adopt(task) {
      if (closed) throw new Error('the task runner is closed');
      const continuation = task.continuation;
      if (task.state !== 'input-required' || task.era !== 'modern' || !continuation)
        throw new Error(`the task ${task.id} is not a 2026-07-28 call waiting at a round`);
      Object.assign(task, { pid, ...holding });
      await save(task);
      callToTask.set(task.callId, task.id);
      return track(task, (first, signal) => drive(task, modernRound(rounds, task, continuation, signal), first, signal));
    },

    sessionOfCall(callId) {
      const taskId = callToTask.get(callId);
      return taskId ? driving.get(taskId)?.task.session : undefined;
    },

    async recover() {
      const abandoned: string[] = [];
      const resumed: string[] = [];
      for (const task of await store.unfinished(options.holder)) {
        if (task.holder !== options.holder || driving.has(task.id)) continue;
        if (task.state === 'input-required' && task.era === 'modern' && task.continuation) {
          const continuation = task.continuation;
          Object.assign(task, { pid, ...holding });
          await save(task);
          resumed.push(task.id);
          void track(task, (first, signal) => drive(task, modernRound(rounds, task, continuation, signal), first, signal));
          continue;
        }
        const reason =
          'the daemon holding the call stopped, and a 2025-11-25 call (held on its connection) cannot outlive that connection';
        for (const id of task.waitingOn) {
          await abandonQuietly(broker, id, reason);
          abandoned.push(id);
        }
        Object.assign(task, {
          state: 'failed',
          waitingOn: [],
          error: { code: 'ELICITATION_ABANDONED', message: `${reason}; run the call again` },
        });
        await save(task);
      }
      return { abandoned, resumed };
    },

    active: (session) =>
      session === undefined ? driving.size : [...driving.values()].filter((d) => d.task.session === session).length,

    async close(reason = 'the daemon holding the call stopped', closeOptions = {}) {
      closed = true;
      offOpen();
      offEvents();
      toReport.clear();
      const entries = [...driving.values()];
      for (const entry of entries) {
        const taken = closeOptions.lost === true && entry.task.era === 'modern';
        if (!taken && (entry.task.era === 'legacy' || entry.task.state === 'running' || options.resumable === false)) {
          for (const id of entry.task.waitingOn) await abandonQuietly(broker, id, reason);
          Object.assign(entry.task, {
            state: 'failed',
            waitingOn: [],
            error: { code: 'ELICITATION_ABANDONED', message: `${reason}; run the call again` },
          });
          await update(entry.task).catch(() => undefined);
        }
        entry.abort.abort();
      }
      // Modern rounds stop at once (their awaits abort); legacy calls end when the host closes their connections.
      await Promise.allSettled(entries.filter((e) => e.task.era === 'modern').map((e) => e.done));
    },
  };
  return runner;
}
