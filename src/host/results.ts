/**
 * Following a call to its end from any process on the store: wait while it is driven (here or elsewhere), and take
 * over a modern call nobody drives any more (let go, or its holder died) so exactly one process resumes it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Elicitation, ElicitRequest, StoreBroker } from '../broker/index.js';
import { questionOf } from '../broker/index.js';
import { McpxError } from '../errors.js';
import { canTakeOver, isModernRound, isReleased, processHolderGone } from '../tasks/handoff.js';
import type { Leases } from '../tasks/leases.js';
import type { TaskRunner } from '../tasks/runner.js';
import type { TaskStore } from '../tasks/task-store.js';
import type { TaskRecord, TaskStep } from '../tasks/types.js';
import type { Question } from '../types.js';
import { leaseLostError, leaseLostFor, type LeaseVoice } from './lease-lost.js';

const POLL_MS = 200;

export interface ResultOptions {
  /** Give up waiting after this long and return the call as it stands (input-required). Default: wait until it ends. */
  timeoutMs?: number;
  /** Resume a modern call whose asking process is gone without letting it go (it crashed): only when it surely is gone. */
  adopt?: boolean;
  signal?: AbortSignal;
}

export interface ResultDeps {
  broker: StoreBroker;
  tasks: TaskStore;
  runner: TaskRunner;
  leases: Leases | undefined;
  voice: LeaseVoice;
  lease: { holder: string; leaseMs: number; store: string };
  /** Set once the lease was lost. */
  lost(): McpxError | undefined;
  /** A call this process now drives (it took it over): let go at close. */
  held(taskId: string): void;
}

/**
 * A call's stop as its caller is told it: the REST 200 and 202 bodies (a failed stop is an error body), which
 * `mcpx call` reads from a daemon. `inline`: the daemon that holds the call lives only as long as this command.
 */
export type CallResponse =
  | { status: 'complete'; callId: TaskRecord['callId']; task?: TaskRecord['id']; result: Record<string, unknown> }
  | {
      status: 'input-required';
      inputRequired: {
        callId: TaskRecord['callId'];
        task?: TaskRecord['id'];
        server: string;
        tool: string;
        questions: Elicitation[];
        /** The same as a message for a person (what `mcpx call` prints). */
        text: string;
      };
      inline?: boolean;
    };

/** A stored call as a stop: its result, its error, or its questions. */
export function stepOf(task: TaskRecord, questions: Question[]): TaskStep {
  if (task.state === 'complete') return { status: 'complete', task, result: task.result! };
  if (task.state === 'failed')
    return { status: 'failed', task, error: task.error ?? { code: 'CALL_FAILED', message: 'the call failed' } };
  return { status: 'input-required', task, questions };
}

/** A stored question as pending() lists it: the handler's view, with its key in the modern round's inputRequests. */
function questionOfRequest(request: ElicitRequest): Question {
  return { ...questionOf(request), ...(request.key ? { key: request.key } : {}) };
}

async function questionsOf(broker: StoreBroker, task: TaskRecord): Promise<Question[]> {
  const requests = await Promise.all(task.waitingOn.map((id) => broker.get(id)));
  return requests.filter((r): r is ElicitRequest => r !== undefined).map(questionOfRequest);
}

/** The call's stop once it ends (or as it stands at the timeout), driving a modern call nobody drives any more. */
export async function resultOf(deps: ResultDeps, id: string, options: ResultOptions = {}): Promise<TaskStep> {
  const { runner, tasks, leases } = deps;
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const left = deadline - Date.now();
    const record = await runner.wait(id, {
      ...(Number.isFinite(left) ? { timeoutMs: Math.max(0, left) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!record)
      throw new McpxError(
        'TASK_NOT_FOUND',
        `No call ${id} in this store: it never existed here or its record has expired (records are kept a week).`,
        { data: { id } },
      );
    if (record.state === 'complete' || record.state === 'failed') return stepOf(record, []);
    const lost = deps.lost();
    const drivenHere = !lost && runner.taskOfCall(record.callId) === record.id;
    // Lost our lease: we drive nothing more (nor judge others); a call nobody drives is another process's to resume.
    if (lost && !drivenHere && isModernRound(record) && (!record.holder || (await processHolderGone(record, leases))))
      throw leaseLostError(deps.voice, deps.lease, record.id);
    const takeable = !lost && !drivenHere && (options.adopt ? isModernRound(record) : await canTakeOver(record, leases));
    // Exactly one process wins the claim and resumes the call; a loser follows the record the winner writes.
    if (takeable && (await tasks.claim(record))) {
      deps.held(record.id);
      await runner.adopt(record);
      continue;
    }
    if (Date.now() >= deadline) return stepOf(record, await questionsOf(deps.broker, record));
    // Held by another process (or here, past a timeout): its record changes when the call moves on.
    if (!drivenHere)
      await sleep(
        Math.min(POLL_MS, Math.max(0, deadline - Date.now())),
        undefined,
        options.signal ? { signal: options.signal } : {},
      );
  }
}

/**
 * Takes over a modern call another process let go or whose holder died: true when this process won the claim and
 * now drives it (its next stop comes through the runner's onStop), false when it is not ours to take. Once the
 * lease is lost, a call nobody drives throws LEASE_LOST naming it.
 */
export async function adoptTask(deps: ResultDeps, taskId: string): Promise<boolean> {
  const { tasks, leases } = deps;
  const task = await tasks.get(taskId);
  const lost = deps.lost();
  if (lost) {
    // Not ours to drive any more; nobody drives it (let go, or its holder, this process, lost its lease): say so.
    if (isReleased(task) || (isModernRound(task) && (await processHolderGone(task, leases)))) throw leaseLostFor(lost, taskId);
    return false;
  }
  // Let go, or its holder died: exactly one process wins the claim and resumes it.
  if (!task || !(await canTakeOver(task, leases)) || !(await tasks.claim(task))) return false;
  deps.held(task.id);
  // Its first stop here arrives through onStop, like any call's; a failure to resume is a failed stop too.
  void deps.runner.adopt(task).catch(() => undefined);
  return true;
}
