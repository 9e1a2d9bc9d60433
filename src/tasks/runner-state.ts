/**
 * What a task runner keeps while it drives calls: the calls by task and by call id, the questions the client could
 * not tie to one call, the waiters of each task, and which tasks are stored. Every part of the runner reads it.
 */
import type { StoreBroker } from '../broker/index.js';
import type { ElicitRequest } from '../broker/index.js';
import type { CallNotifications } from '../client/index.js';
import { heldBy, receiptsOf, type Receipts } from './delivery.js';
import { roundAudits, type RoundDeps } from './rounds.js';
import type { TaskRunnerOptions } from './runner-types.js';
import type { Continuation, TaskRecord, TaskStep } from './types.js';

export interface Driving {
  task: TaskRecord;
  done: Promise<void>;
  abort: AbortController;
  /** Reports the call's first stop (the caller's 202 or 200); later calls do nothing. */
  first: (step: TaskStep) => void;
  /** Whether the first stop has been reported. */
  reported: boolean;
}

export interface RunnerState {
  readonly options: TaskRunnerOptions;
  readonly receipts: Receipts | undefined;
  readonly now: () => number;
  readonly pid: number;
  /** `persist: 'on-question'`: a task is stored once its call asks. */
  readonly lazy: boolean;
  /** The holder fields every task driven here carries. */
  readonly holding: ReturnType<typeof heldBy>;
  readonly driving: Map<string, Driving>;
  readonly callToTask: Map<string, string>;
  /** Questions the client could not tie to one call, with the calls they may belong to. */
  readonly ambiguous: Map<string, string[]>;
  /** Who waits for each task to settle. */
  readonly settled: Map<string, Set<() => void>>;
  /** Tasks written to the store at least once: from then on every change is. */
  readonly kept: Set<string>;
  /** Each call's round as it stops if nothing here answers it, told by the call before its questions are asked. */
  readonly waitingRounds: Map<string, Continuation>;
  /** A round whose stop was stored with its question (onOpen), exactly as the call stops there: not written twice. */
  readonly storedRounds: Map<string, Continuation>;
  /** Ambiguous questions to announce to the other calls they may belong to, once their open event is out. */
  readonly toReport: Map<string, { request: ElicitRequest; unsure: Driving[] }>;
  /** What each call's caller here wants of its notifications, for every round it drives (never stored). */
  readonly callerNotifications: Map<string, CallNotifications>;
  readonly audits: ReturnType<typeof roundAudits>;
  readonly rounds: RoundDeps;
  closed: boolean;
}

export function createRunnerState(options: TaskRunnerOptions): RunnerState {
  const callToTask = new Map<string, string>();
  const callerNotifications = new Map<string, CallNotifications>();
  const audits = roundAudits();
  return {
    options,
    receipts: options.receipts ?? receiptsOf(options.broker),
    now: options.clock ?? Date.now,
    pid: options.pid ?? 0,
    lazy: options.persist === 'on-question',
    holding: heldBy(options),
    driving: new Map(),
    callToTask,
    ambiguous: new Map(),
    settled: new Map(),
    kept: new Set(),
    waitingRounds: new Map(),
    storedRounds: new Map(),
    toReport: new Map(),
    callerNotifications,
    audits,
    rounds: {
      broker: options.broker,
      host: (session) => options.host(session),
      onCall: (callId, task) => callToTask.set(callId, task.id),
      defer: audits.defer,
      ...(options.onProgress ? { onProgress: (task, progress) => options.onProgress!(task, progress, undefined) } : {}),
      notificationsOf: (task) => callerNotifications.get(task.id),
    },
    closed: false,
  };
}

/**
 * The record as it stands, for a write or a caller's step: a copy of what the runner changes in place (the top level,
 * the id lists). What it holds (arguments, continuation, result, error) is only ever replaced, so it is shared, not
 * deep-copied (a deep copy per write and per stop was most of the runner's own cost of a question's round).
 */
export const snapshot = (task: TaskRecord): TaskRecord => ({
  ...task,
  questions: [...task.questions],
  waitingOn: [...task.waitingOn],
});

/** A modern task's record at a stop on its round's one question, as drive() would store it there. */
export const stopRecord = (record: TaskRecord, round: Continuation): Partial<TaskRecord> => {
  const id = round.questions[0]!.id;
  const questions = record.questions.includes(id) ? record.questions : [...record.questions, id];
  return { state: 'input-required', era: 'modern', questions, waitingOn: [id], continuation: round };
};

/**
 * Whether a question still waiting when `task`'s call ended went on to another call it may belong to: the client
 * hands a guessed question to another candidate call still open, so it is not abandoned with this one.
 */
export const inherited = (state: RunnerState, id: string, task: TaskRecord): boolean =>
  (state.ambiguous.get(id) ?? []).some((callId) => {
    const other = state.callToTask.get(callId);
    return other !== undefined && other !== task.id && state.driving.has(other);
  });

/** The record as stored now: from here on every change of the task is stored. */
export const stamp = (state: RunnerState, task: TaskRecord): TaskRecord => {
  task.updatedAt = state.now();
  state.kept.add(task.id);
  return snapshot(task);
};

export const save = async (state: RunnerState, task: TaskRecord): Promise<void> =>
  void (await state.options.store.put(stamp(state, task)));

/** A change of a task that may never have asked: stored only if the task is. */
export const update = (state: RunnerState, task: TaskRecord): Promise<void> =>
  !state.lazy || state.kept.has(task.id) ? save(state, task) : Promise.resolve();

/** Wakes whoever waits for the task to settle. */
export const notify = (state: RunnerState, id: string): void => {
  for (const wake of state.settled.get(id) ?? []) wake();
  state.settled.delete(id);
};

/** The broker the runner was given, with its store when it has one (a lazily kept task rides on a question's write). */
export const storeKeyvOf = (state: RunnerState) => (state.options.broker as Partial<StoreBroker>).store?.keyv;
