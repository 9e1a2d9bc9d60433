/**
 * A daemon waiting on a call it does not drive (`mcpx task result`, `GET /v1/tasks/{id}?wait=`). A modern call let
 * go by its asker (an `mcpx serve` whose client went away) or whose serve died is taken over here when the daemon
 * serves its server (one claim in the store wins, src/tasks/handoff.ts); a call another live process drives is
 * followed through its record, which that process writes at every stop.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { canTakeOver } from './handoff.js';
import type { Leases } from './leases.js';
import type { TaskRunner } from './runner.js';
import type { TaskStore } from './task-store.js';
import type { TaskRecord } from './types.js';

/** How often the record of a call another process drives is read while waiting on it. */
const POLL_MS = 100;

export interface FollowOptions {
  tasks: TaskStore;
  leases: Leases | undefined;
  /** Whether this daemon can resume a call to `server` (its config has it). */
  serves(server: string): Promise<boolean>;
}

const finished = (task: TaskRecord): boolean => task.state === 'complete' || task.state === 'failed';

/** The runner, whose `wait` also takes over or follows a call driven elsewhere. */
export function followingRunner(runner: TaskRunner, options: FollowOptions): TaskRunner {
  const { tasks, leases } = options;
  const drivenHere = (task: TaskRecord): boolean => runner.taskOfCall(task.callId) === task.id;
  /** Takes the call over when it is free to take and ours to serve; true when this daemon now drives it. */
  const takeOver = async (task: TaskRecord): Promise<boolean> => {
    if (drivenHere(task) || !(await canTakeOver(task, leases)) || !(await options.serves(task.server))) return false;
    if (!(await tasks.claim(task))) return false;
    await runner.adopt(task);
    return true;
  };
  // Every other method is the runner's own, looked up at each call (not a copy taken now).
  const following: TaskRunner = Object.create(runner);
  following.wait = async (id, waitOptions = {}) => {
    const timeoutMs = waitOptions.timeoutMs ?? Infinity;
    if (timeoutMs <= 0) return runner.wait(id, waitOptions);
    const until = Date.now() + timeoutMs;
    const left = () => (Number.isFinite(until) ? { ...waitOptions, timeoutMs: Math.max(0, until - Date.now()) } : waitOptions);
    for (;;) {
      const task = await tasks.get(id);
      if (!task || finished(task) || drivenHere(task) || (await takeOver(task))) return runner.wait(id, left());
      if (Date.now() >= until || waitOptions.signal?.aborted) return task;
      await sleep(
        Math.min(POLL_MS, until - Date.now()),
        undefined,
        waitOptions.signal ? { signal: waitOptions.signal } : {},
      ).catch(() => undefined);
    }
  };
  return following;
}
