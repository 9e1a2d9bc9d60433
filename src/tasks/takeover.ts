/**
 * Many daemons on one shared store, none of whose calls is lost with it. Each holds its holder's lease (renewed every
 * third of its TTL) and reads the others' at each renewal: the first survivor to take a lapsed one (exactly one
 * wins) adopts that daemon's calls from its live-task row. Modern calls resume from their stored continuation, MCP
 * tasks are followed at their server; a legacy call died with its connection, so its questions are abandoned and its
 * task fails saying so.
 */
import type { Broker } from '../broker/index.js';
import type { Leases } from './leases.js';
import { followsMcpTask } from './mcp-follow.js';
import type { TaskRunner } from './runner.js';
import type { TaskStore } from './task-store.js';
import type { TaskRecord } from './types.js';

export interface HolderLeaseOptions {
  leases: Leases;
  /** This daemon's holder (its config fingerprint). */
  holder: string;
  /** This process's identity in lease rows: unique per start (`<host>:<pid>:<random>`). */
  instance: string;
  /** A lease not renewed for this long is lapsed: its daemon is taken for dead. */
  ttlMs: number;
  runner: TaskRunner;
  tasks: TaskStore;
  broker: Broker;
  pid: number;
  /** Whether an owner is known to be dead without waiting for its lease (a process of this host that is gone). */
  ownerGone?: (owner: string) => boolean;
  /** Whether this daemon can resume a call to `server` (its config has it); a call it cannot is left for another. */
  serves?: (server: string) => Promise<boolean>;
  /** Our own lease was taken (we stalled past its TTL and another daemon adopted our calls): stop driving them. */
  onLost: () => void;
  log?: (line: string) => void;
}

export interface HolderLease {
  /** Resolves once this daemon holds its holder's lease (a predecessor's lapses, or is known dead). */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Renews the lease and takes over lapsed holders every third of the TTL, starting now. */
  start(): void;
  /** One pass: the holders whose calls were taken over. */
  sweep(): Promise<string[]>;
  /** Stops renewing and lets the lease lapse, so a survivor adopts the modern calls left resumable. */
  stop(): Promise<void>;
}

const PREFIX = 'holder:';
const REASON = 'the daemon holding the call died, and a 2025-11-25 call (held on its connection) cannot outlive that connection';

export function createHolderLease(options: HolderLeaseOptions): HolderLease {
  const { leases, instance, ttlMs, runner, tasks, broker } = options;
  const own = PREFIX + options.holder;
  const log = options.log ?? (() => undefined);
  let timer: ReturnType<typeof setInterval> | undefined;
  // Renewals and sweeps run one at a time each, apart: a long takeover never delays our own renewal.
  let renewing: Promise<unknown> = Promise.resolve();
  let sweeping: Promise<unknown> = Promise.resolve();
  let stopped = false;

  /** Whether a takeover's claimer is gone: its process exited (on this host), or it holds no live lease. */
  async function takerGone(taker: string): Promise<boolean> {
    if (options.ownerGone?.(taker)) return true;
    const { now, leases: all } = await leases.list();
    return !all.some((lease) => lease.owner === taker && lease.expiresAt >= now);
  }

  /**
   * The call's state was claimed already. By a taker of this holder before us (it named itself) that is gone: it
   * died between its claim and its write, and the call, still this holder's, would be nobody's. Of the survivors
   * judging so, one claim after it wins; that claim's taker may die in the same window, so the chain of claims is
   * followed to its last link, and claimed after it when that taker is gone too. Anyone else: theirs.
   */
  async function claimAfterDeadTaker(task: TaskRecord): Promise<boolean> {
    const seen = new Set<string>();
    let taker = await tasks.claimant(task);
    while (taker !== undefined && !seen.has(taker)) {
      // Ours: a takeover of ours claimed it and its write failed (the store erred), so the call is still to adopt.
      if (taker === instance) return true;
      seen.add(taker);
      if (!(await takerGone(taker))) return false;
      log(`${task.id}: its taker ${taker} died before adopting it`);
      if (await tasks.claim(task, instance, taker)) return true;
      taker = await tasks.claimant(task, taker);
    }
    return false;
  }

  /** Adopts a lapsed holder's calls (we hold its lease while we do); resolves with how many we left to another. */
  async function takeOver(holder: string): Promise<number> {
    // Calls that stay in the holder's row: ones we cannot serve, and ones another process claimed.
    const left: string[] = [];
    let adopted = 0;
    let unserved = 0;
    for (const task of await tasks.liveOf(holder)) {
      // Still ours (renewed): a takeover slower than the TTL must not share a call with the next survivor.
      if (!(await leases.renew(PREFIX + holder, instance, ttlMs)))
        throw new Error(`the lease of ${holder} passed to another daemon during the takeover`);
      if (options.serves && !(await options.serves(task.server))) {
        left.push(task.id);
        unserved++;
        continue;
      }
      // Whoever asks for the call's result may take a dead serve's call over too: of us and them, one claim wins.
      // The loser keeps the call in this row until its record names the winner (the row's readers then skip it): a
      // winner that fails to write it (killed, or the store erred) leaves it here for a later sweep, never nowhere.
      if (!(await tasks.claim(task, instance)) && !(await claimAfterDeadTaker(task))) {
        left.push(task.id);
        continue;
      }
      // A modern round resumes from its continuation; an MCP task is followed at its server (mcp-follow.ts).
      const modern =
        (task.state === 'input-required' && task.era === 'modern' && task.continuation !== undefined) || followsMcpTask(task);
      if (!modern) await abandonLegacy(broker, task);
      Object.assign(task, { holder: options.holder, pid: options.pid, instance, updatedAt: Date.now() });
      // Ours from here (in our live row) before it leaves theirs: a crash now leaves it to whoever takes us over.
      await tasks.put(task);
      if (!modern) continue;
      adopted++;
      void runner.adopt(task).catch((error: unknown) => log(`adopting ${task.id} failed: ${(error as Error).message}`));
    }
    await tasks.setLive(holder, left);
    const claimed = left.length - unserved;
    log(
      `took over ${holder}: ${adopted} call(s) resumed${unserved ? `, ${unserved} left for a daemon serving their server` : ''}${claimed ? `, ${claimed} claimed by another process` : ''}`,
    );
    return left.length;
  }

  async function sweep(): Promise<string[]> {
    const taken: string[] = [];
    const { now, leases: all } = await leases.list();
    for (const lease of all) {
      if (lease.name === own || !lease.name.startsWith(PREFIX) || lease.expiresAt >= now) continue;
      if (stopped || !(await leases.acquire(lease.name, instance, ttlMs))) continue;
      const holder = lease.name.slice(PREFIX.length);
      let left = true;
      try {
        left = (await takeOver(holder)) > 0;
        taken.push(holder);
      } finally {
        // Nothing left: drop the row; else let it lapse again for a daemon that serves what we could not.
        await (left ? leases.lapse(lease.name, instance) : leases.remove(lease.name, instance)).catch(() => undefined);
      }
    }
    return taken;
  }

  async function renew(): Promise<void> {
    if (stopped || (await leases.renew(own, instance, ttlMs))) return;
    log(`lost the lease of ${options.holder}: another daemon took over its calls`);
    stopped = true;
    if (timer) clearInterval(timer);
    options.onLost();
  }

  let queued = 0;
  const queueSweep = (): Promise<string[]> => {
    queued++;
    const pass = sweeping.then(() => (stopped ? [] : sweep())).finally(() => queued--);
    sweeping = pass.catch((error: unknown) => log(`taking over lapsed daemons failed: ${(error as Error).message}`));
    return pass;
  };

  return {
    async acquire(signal) {
      for (;;) {
        if (await leases.acquire(own, instance, ttlMs)) return;
        const held = (await leases.list()).leases.find((l) => l.name === own);
        if (held && options.ownerGone?.(held.owner) && (await leases.acquire(own, instance, ttlMs, held.owner))) return;
        if (signal?.aborted) throw new Error('stopped while waiting for the lease');
        // Another live process holds it (a survivor adopting our calls, or a stalled predecessor): wait for it.
        await new Promise((resolve) => setTimeout(resolve, Math.min(500, ttlMs / 3)));
      }
    },
    start() {
      const tick = (): void => {
        renewing = renewing.then(renew).catch((error: unknown) => log(`lease renewal failed: ${(error as Error).message}`));
        // A sweep still running (a big takeover) is not queued behind again and again.
        if (queued === 0) void queueSweep().catch(() => undefined);
      };
      tick();
      timer = setInterval(tick, ttlMs / 3);
      timer.unref();
    },
    sweep: queueSweep,
    async stop() {
      if (timer) clearInterval(timer);
      const lost = stopped;
      stopped = true;
      await Promise.all([renewing, sweeping]);
      if (!lost) await leases.lapse(own, instance).catch(() => undefined);
    },
  };
}

/** A legacy call died with its connection: its questions are abandoned and its task fails, saying so. */
async function abandonLegacy(broker: Broker, task: TaskRecord): Promise<void> {
  for (const id of task.waitingOn) {
    try {
      if ((await broker.get(id))?.state === 'pending') await broker.abandon(id, REASON);
    } catch {
      // Answered meanwhile (the answer was accepted before the call died) or gone: the task says what happened.
    }
  }
  Object.assign(task, {
    state: 'failed',
    waitingOn: [],
    error: { code: 'ELICITATION_ABANDONED', message: `${REASON}; run the call again` },
  });
  delete task.continuation;
}
