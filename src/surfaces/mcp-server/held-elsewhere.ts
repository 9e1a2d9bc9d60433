/**
 * A retry that reaches a serve process which does not hold the call (modern HTTP requests are stateless: any serve
 * on the store may get one). mcpx's request state names the task, and the task's record in the store says where
 * the call stands: its holder writes every stop. So this process answers the questions through the broker, then
 * follows the record until the call moves on; a call nobody holds any more (its serve stopped or died) is taken over
 * here, when this process wins the claim.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ElicitRequest } from '../../broker/index.js';
import type { TaskRecord, TaskStep } from '../../tasks/types.js';
import type { ServeCore, Stop } from './core.js';

/** How often the record of a call held by another process is read while waiting for it to move on. */
const POLL_MS = 50;

/**
 * The call's next stop worth answering from: finished, or waiting on a question still pending (a new round, or one
 * the retry left unanswered). Undefined when the store has no such call. Stops of a call held here come from `core`.
 */
export async function stopFromStore(core: ServeCore, taskId: string, signal: AbortSignal): Promise<Stop | undefined> {
  for (;;) {
    signal.throwIfAborted();
    const here = core.latestStop(taskId);
    if (here) return here;
    const task = await core.tasks.get(taskId);
    if (!task) return undefined;
    // A serve that lost its lease drives nothing: what the store shows first; core.adopt throws LEASE_LOST when
    // nobody drives the call any more (the retry's answers stay stored: whoever asks for its result resumes it).
    const stored = core.lost ? await stepOf(core, task) : undefined;
    if (stored) return { seq: 0, step: stored };
    if (await core.adopt(taskId)) return core.nextStop(taskId, 0, signal);
    const step = await stepOf(core, task);
    if (step) return { seq: 0, step };
    await sleep(POLL_MS, undefined, { signal });
  }
}

async function stepOf(core: ServeCore, task: TaskRecord): Promise<TaskStep | undefined> {
  if (task.state === 'complete') return { status: 'complete', task, result: task.result! };
  if (task.state === 'failed')
    return { status: 'failed', task, error: task.error ?? { code: 'CALL_FAILED', message: 'the call failed' } };
  if (task.state !== 'input-required') return undefined;
  const waiting = await Promise.all(task.waitingOn.map((id) => core.broker.get(id)));
  const pending = waiting.filter((q): q is ElicitRequest => q?.state === 'pending');
  // Every question answered: the holder is moving the call on; its next stop is written when it gets there.
  return pending.length ? { status: 'input-required', task, questions: [] } : undefined;
}
