/**
 * A legacy question held by a live call, laid out in the store as a holder leaves it: the holder's task names the
 * question (with its instance and a lease on Redis and Postgres, its pid on SQLite), and the question is open.
 */
import { hostname } from 'node:os';
import type { StoreBroker } from '../../src/broker/broker.js';
import { leaseOf } from '../../src/tasks/handoff.js';
import { openLeases, type Leases } from '../../src/tasks/leases.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import type { TaskRecord } from '../../src/tasks/types.js';

export interface HeldQuestion {
  id: string;
  task: TaskRecord;
  holderName: string;
  instance: string;
  leases: Leases | undefined;
}

/** `pid` is the holder's pid where no lease judges it (SQLite): a dead one makes the holder gone. */
export async function openHeldQuestion(
  holder: StoreBroker,
  options: { session: string; leaseMs: number; pid?: (leases: Leases | undefined) => number },
): Promise<HeldQuestion> {
  const leases = openLeases(holder.store);
  const instance = `${hostname()}:${process.pid}:${Math.random().toString(16).slice(2, 10)}`;
  const holderName = `holder-${instance}`;
  if (leases && !(await leases.acquire(leaseOf(holderName), instance, options.leaseMs)))
    throw new Error(`the lease of ${holderName} was refused`);
  const id = `elc-${Math.random().toString(16).slice(2, 10).padEnd(16, '0')}`;
  const now = Date.now();
  const task: TaskRecord = {
    id: `tsk-${id.slice(4)}`,
    callId: 'cal-0000000000000001',
    server: 'legacy',
    tool: 'ask_form',
    arguments: {},
    session: options.session,
    state: 'input-required',
    era: 'legacy',
    questions: [id],
    waitingOn: [id],
    pid: options.pid ? options.pid(leases) : process.pid,
    holder: holderName,
    ...(leases ? { instance } : {}),
    host: hostname(),
    createdAt: now,
    updatedAt: now,
  };
  await createTaskStore(holder.store.keyv).put(task);
  await holder.openRequest({
    id,
    task: task.id,
    trace: task.callId,
    server: 'legacy',
    tool: 'ask_form',
    mode: 'form',
    era: 'legacy',
    message: 'which repo?',
    requestedSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
  });
  return { id, task, holderName, instance, leases };
}
