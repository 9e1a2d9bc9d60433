/**
 * Handing a call over between processes on one store. A modern call waiting at a round needs no live connection:
 * its continuation is in the task record. A process that stops (an `mcpx serve` whose client went away) lets go of
 * such calls (no holder); whoever asks for one's result next (another serve, `mcpx task result`, a daemon) takes it
 * over and resumes it with the answers given meanwhile. So does whoever asks after the process holding it died
 * (SIGKILL): a serve (or an app) is a holder like a daemon, with a lease on Redis and Postgres, judged by its pid on
 * SQLite.
 * Taking over is a claim in the store (put-if-absent on the state the record shows), so exactly one process wins.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Leases } from './leases.js';
import type { TaskStore } from './task-store.js';
import type { TaskRecord } from './types.js';
import { processAlive } from '../local/process-alive.js';

/**
 * Holders that are one process each, unique per start: `mcpx serve` (`serve-<pid>-<random>`) and an app or command
 * on a store (`app-<random>`, as `mcpx task result` resuming a call). A daemon's holder is its config's, recovered
 * by its restart or taken over through its own lease (src/tasks/takeover.ts).
 */
export const isProcessHolder = (holder: string | undefined): holder is string =>
  holder !== undefined && (holder.startsWith('serve-') || holder.startsWith('app-'));
/** The lease row of a holder (the same rows daemons hold: src/tasks/takeover.ts). */
export const leaseOf = (holder: string): string => `holder:${holder}`;

/** Whether the call waits at a modern round, resumable by anyone from its continuation. */
export function isModernRound(task: TaskRecord | undefined): task is TaskRecord {
  return task !== undefined && task.state === 'input-required' && task.era === 'modern' && task.continuation !== undefined;
}

/** Whether nobody drives the call and anybody may resume it from its continuation. */
export function isReleased(task: TaskRecord | undefined): task is TaskRecord {
  return isModernRound(task) && task.holder === undefined;
}

/** This process in lease rows, unique per start: `<host>:<pid>:<random>` (recorded on its tasks, so others judge it). */
export const newInstance = (): string => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/** Whether a lease owner (`<host>:<pid>:<random>`) is a process of this host that has exited. */
export function ownerExited(owner: string): boolean {
  const [host, pid] = owner.split(':');
  return host === hostname() && Number(pid) > 0 && !processAlive(Number(pid));
}

/**
 * Whether the process holding the call is gone: its lease (Redis, Postgres) lapsed, missing, or owned by a process
 * of this host that exited; without leases (SQLite, memory: one host), its pid is not alive. Calls held by a
 * daemon are never judged here (its own lease and takeover cover them). With `seize`, a lapsed lease is also taken
 * from its owner in the same step (`Leases.seize`): a holder that only stalled could re-acquire a lapsed lease, so
 * whoever acts on the verdict makes it final first.
 */
export async function processHolderGone(
  task: TaskRecord,
  leases: Leases | undefined,
  options: { seize?: boolean } = {},
): Promise<boolean> {
  const holder = task.holder;
  if (!isProcessHolder(holder)) return false;
  if (!leases) return task.pid > 0 && !processAlive(task.pid);
  const { now, leases: rows } = await leases.list();
  const lease = rows.find((row) => row.name === leaseOf(holder));
  if (lease === undefined || ownerExited(lease.owner)) return true;
  if (lease.expiresAt >= now) return false;
  return !options.seize || (await leases.seize(lease.name, lease.owner));
}

/** Whether this process may take the call over (then only through `TaskStore.claim`): let go, or its holder is gone. */
export async function canTakeOver(task: TaskRecord | undefined, leases: Leases | undefined): Promise<boolean> {
  return isModernRound(task) && (task.holder === undefined || (await processHolderGone(task, leases, { seize: true })));
}

/** Lets go of one call: no holder, a fresh hand-off token (the next claim names it), and where its servers come from. */
export function letGo(task: TaskRecord, config: string | undefined): void {
  delete task.holder;
  task.handoff = randomBytes(8).toString('hex');
  if (config !== undefined) task.config = config;
  task.updatedAt = Date.now();
}

/**
 * Lets go of the modern calls `holder` left waiting at a round (after its runner closed): each keeps its
 * continuation, loses its holder, and names the config its servers come from. Returns the ids let go.
 */
export async function releaseHeld(
  store: TaskStore,
  ids: Iterable<string>,
  holder: string,
  config: string | undefined,
): Promise<string[]> {
  const released: string[] = [];
  for (const id of ids) {
    const task = await store.get(id).catch(() => undefined);
    if (!isModernRound(task) || task.holder !== holder) continue;
    letGo(task, config);
    await store.put(task).catch(() => undefined);
    released.push(id);
  }
  return released;
}

/**
 * Holds `holder`'s lease on a shared store while this process lives (renewed every third of `ttlMs`), so others
 * can tell it from a process that died; stopping drops the row (its calls were let go: nothing to take over).
 * A renewal late past the lease (the process stalled) re-acquires it when nobody took it meanwhile. A renewal
 * refused means another process took it (and calls with it): renewing stops and `onLost` is told, once.
 */
export async function keepLease(
  leases: Leases,
  holder: string,
  ttlMs: number,
  instance = newInstance(),
  onLost?: () => void,
): Promise<{ stop(): Promise<void> }> {
  const name = leaseOf(holder);
  await leases.acquire(name, instance, ttlMs);
  let renewing: Promise<void> = Promise.resolve();
  let lost = false;
  const timer = setInterval(() => {
    renewing = renewing
      .then(async () => {
        if (lost || (await leases.renew(name, instance, ttlMs))) return;
        lost = true;
        clearInterval(timer);
        onLost?.();
      })
      .catch(() => undefined);
  }, ttlMs / 3);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await renewing;
      await leases.remove(name, instance).catch(() => undefined);
    },
  };
}
