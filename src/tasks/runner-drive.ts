/**
 * Driving one call: rounds until it completes or fails (drive), the bookkeeping around it (track), and what the
 * broker shows the runner of each question before storing it (watchOpens): the task holding the asking call, and
 * the other calls an ambiguous question may belong to.
 */
import type { ElicitRequest } from '../broker/index.js';
import { questionOf } from '../broker/index.js';
import type { Question } from '../types.js';
import { errorOf, legacyWatch, modernRound, type LegacyWatch } from './rounds.js';
import {
  inherited,
  notify,
  save,
  snapshot,
  stamp,
  stopRecord,
  storeKeyvOf,
  update,
  type Driving,
  type RunnerState,
} from './runner-state.js';
import type { CallOutcome, TaskRecord, TaskResult, TaskStep } from './types.js';

/** Tells a call that has not stopped yet about a question that may be its own (its answer goes to the call the seam chose). */
async function reportAmbiguous(state: RunnerState, other: Driving, request: ElicitRequest): Promise<void> {
  const { task } = other;
  Object.assign(task, { state: 'input-required', era: 'legacy' });
  if (!task.questions.includes(request.id)) task.questions.push(request.id);
  if (!task.waitingOn.includes(request.id)) task.waitingOn.push(request.id);
  await save(state, task).catch(() => undefined);
  other.first({ status: 'input-required', task: snapshot(task), questions: [questionOf(request)] });
}

/**
 * The broker shows the runner each question before storing it: the record gets the task holding the asking call,
 * and a question the client could not tie to one call goes, once announced, to the other calls it may belong to.
 * Returns the unsubscribe.
 */
export function watchOpens(state: RunnerState): () => void {
  const { broker, store } = state.options;
  const { driving, callToTask, toReport } = state;
  const offOpen = broker.onOpen(async (request, { waits }) => {
    const taskId = request.task ?? callToTask.get(request.trace);
    if (request.ambiguous) {
      state.ambiguous.set(request.id, request.candidateCalls ?? []);
      const candidates = new Set((request.candidateCalls ?? []).map((callId) => callToTask.get(callId)));
      const unsure = [...driving.values()].filter((d) => d.task.id !== taskId && candidates.has(d.task.id) && !d.reported);
      if (unsure.length) toReport.set(request.id, { request, unsure });
    }
    // A lazily kept task is stored no later than its first question names it: in the question's own write when
    // they share a store (its live-row entry too, unless another write of that row is pending), else before it.
    const held = taskId ? driving.get(taskId)?.task : undefined;
    if (held && state.lazy && !state.kept.has(held.id)) {
      const keyv = storeKeyvOf(state);
      const record = stamp(state, held);
      // The round's only question, left to wait: the call stops right here, so its record goes as it stands then.
      const round = waits ? state.waitingRounds.get(held.id) : undefined;
      const stops = round?.questions.length === 1 && round.questions[0]!.id === request.id;
      if (stops) Object.assign(record, stopRecord(record, round));
      const along = keyv && store.withQuestion ? store.withQuestion(record, keyv) : undefined;
      if (along) {
        if (stops) {
          // Its era is known now: a lease lost before its stop leaves this stored stop to whoever takes the call over.
          held.era = 'modern';
          state.storedRounds.set(held.id, round);
        }
        return {
          task: taskId!,
          rows: along.rows,
          ...(along.live ? { alongside: along.live } : {}),
          ...(along.landed ? { written: along.landed } : {}),
        };
      }
      await save(state, held);
    }
    return taskId ? { task: taskId } : undefined;
  });
  const offEvents = broker.subscribe((event) => {
    const report = event.kind === 'elicit.open' && event.elicit ? toReport.get(event.elicit) : undefined;
    if (!report) return;
    toReport.delete(report.request.id);
    // The question may be theirs: their callers hear of it now, marked ambiguous, instead of waiting out the TTL.
    for (const other of report.unsure) void reportAmbiguous(state, other, report.request);
  });
  return () => {
    offOpen();
    offEvents();
    toReport.clear();
  };
}

/** The task at a stop with questions: its record lists them, and waits on the open ones. */
function stopAt(task: TaskRecord, current: CallOutcome<TaskResult>, legacy: LegacyWatch | undefined): Question[] {
  if (current.status === 'complete') return [];
  const questions: Question[] = current.questions;
  task.state = 'input-required';
  task.era = current.live ? 'legacy' : 'modern';
  for (const q of questions) if (!task.questions.includes(q.id)) task.questions.push(q.id);
  task.waitingOn = current.live
    ? [...new Set([...(legacy?.unanswered ?? []), ...questions.map((q) => q.id)])]
    : questions.map((q) => q.id);
  if (current.continuation) task.continuation = current.continuation;
  return questions;
}

/** Runs rounds until the call completes or fails; `first` resolves at the first stop. */
export async function drive(
  state: RunnerState,
  task: TaskRecord,
  outcome: Promise<CallOutcome<TaskResult>>,
  first: (step: TaskStep) => void,
  signal: AbortSignal,
): Promise<void> {
  const { broker } = state.options;
  const { audits } = state;
  let legacy: LegacyWatch | undefined;
  try {
    let current = await outcome;
    for (;;) {
      if (current.status === 'complete') {
        Object.assign(task, { state: 'complete', result: current.result, waitingOn: [] });
        delete task.continuation;
        await audits.with(task, update(state, task));
        first({ status: 'complete', task: snapshot(task), result: current.result });
        return;
      }
      const questions = stopAt(task, current, legacy);
      // Stored with its question already, exactly as it stands now (onOpen): not written a second time.
      const stored = current.continuation !== undefined && state.storedRounds.get(task.id) === current.continuation;
      state.storedRounds.delete(task.id);
      await audits.with(task, stored ? Promise.resolve() : save(state, task));
      first({ status: 'input-required', task: snapshot(task), questions });
      if (current.live) {
        legacy ??= legacyWatch(broker, task, signal, state.receipts, (id) => inherited(state, id, task));
        current = await legacy.watch(current);
      } else if (current.continuation) {
        current = await modernRound(state.rounds, task, current.continuation, signal);
      } else {
        throw new Error(`the call ${current.callId} stopped at a question with neither an open call nor a continuation`);
      }
      if (state.closed) return;
      if (current.status === 'complete' && legacy) await legacy.end();
      // Not stored: the next stop is, at once. Until then the stored round stays resumable, so a daemon dying
      // between the resume and that write leaves a call another daemon re-sends, not one marked failed.
      Object.assign(task, { state: 'running', waitingOn: [] });
    }
  } catch (error) {
    await legacy?.end();
    await audits.drop(task);
    if (state.closed && signal.aborted) return;
    Object.assign(task, { state: 'failed', error: errorOf(error), waitingOn: [] });
    delete task.continuation;
    await update(state, task).catch(() => undefined);
    first({ status: 'failed', task: snapshot(task), error: task.error! });
  }
}

/** Forgets a call that ended: its ids, its rounds, and the ambiguous questions no other call may inherit. */
function forget(state: RunnerState, task: TaskRecord): void {
  state.driving.delete(task.id);
  state.kept.delete(task.id);
  state.waitingRounds.delete(task.id);
  state.storedRounds.delete(task.id);
  state.callerNotifications.delete(task.id);
  for (const [callId, taskId] of state.callToTask) if (taskId === task.id) state.callToTask.delete(callId);
  for (const id of task.questions)
    if (![...state.driving.values()].some((d) => d.task.questions.includes(id)) && !inherited(state, id, task))
      state.ambiguous.delete(id);
  notify(state, task.id);
}

/** Drives a call with `run`, keeping it in the runner until it ends; resolves at its first stop. */
export function track(
  state: RunnerState,
  task: TaskRecord,
  run: (first: (step: TaskStep) => void, signal: AbortSignal) => Promise<void>,
): Promise<TaskStep> {
  let resolveFirst!: (step: TaskStep) => void;
  const firstStep = new Promise<TaskStep>((resolve) => (resolveFirst = resolve));
  const first = (step: TaskStep): void => {
    state.options.onStop?.(step);
    if (entry.reported) return;
    entry.reported = true;
    resolveFirst(step);
  };
  const abort = new AbortController();
  const entry: Driving = { task, abort, done: Promise.resolve(), first, reported: false };
  state.driving.set(task.id, entry);
  entry.done = run(first, abort.signal).finally(() => {
    forget(state, task);
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

/** Drives a stored modern task from its round's continuation (adopted, or recovered after a restart). */
export function resumeRound(state: RunnerState, task: TaskRecord): Promise<TaskStep> {
  const continuation = task.continuation!;
  return track(state, task, (first, signal) =>
    drive(state, task, modernRound(state.rounds, task, continuation, signal), first, signal),
  );
}
