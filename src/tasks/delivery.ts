/**
 * A legacy answer is good only while the process holding its call lives to pass it on (the call is an open
 * connection there), so such an answer is delivered or refused, never accepted and lost. The holder writes the
 * receipt `r:<id>` = delivered before it passes the answer on; whoever finds the holder dead writes undelivered and
 * marks the question abandoned. Both writes are put-if-absent and fenced in the store by the holder's lease (Redis,
 * Postgres), or judged by the holder's pid on this host (SQLite: one host), so exactly one receipt stands.
 */
import { hostname } from 'node:os';
import type { Broker, BrokerStore, ElicitRequest } from '../broker/types.js';
import { McpxError } from '../errors.js';
import { openFencedWrite, type Fence } from './fenced-write.js';
import type { TaskStore } from './task-store.js';
import type { TaskRecord } from './types.js';

export type Receipt = 'delivered' | 'undelivered';
/** What became of an accepted answer: passed on to its call, or not a legacy call's (nothing to confirm), or unknown. */
export type Delivery = 'delivered' | 'not-held' | 'unconfirmed';

/** The lease a daemon holds for its holder (the same name `takeover.ts` uses). */
export const holderLease = (holder: string): string => `holder:${holder}`;

const RETAIN_MS = 7 * 24 * 3600_000;
const keyOf = (id: string): string => `r:${id}`;

export interface Receipts {
  /** The holder, before passing an answer on: false when it may not (its lease is gone, or the answer was judged undeliverable). */
  deliver(id: string, task: TaskRecord): Promise<boolean>;
  /**
   * Anyone: when the task's holder is dead, records its answer to `id` undeliverable and the question abandoned.
   * The receipt that stands, or undefined while the holder may be alive.
   */
  judge(id: string, task: TaskRecord): Promise<Receipt | undefined>;
  read(id: string): Promise<Receipt | undefined>;
}

export function isAliveHere(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function openReceipts(store: BrokerStore): Receipts {
  const write = openFencedWrite(store);
  const leased = store.kind === 'redis' || store.kind === 'postgres';
  const fenceOf = (task: TaskRecord, as: 'holds' | 'lost'): Fence | undefined => {
    if (leased && task.instance && task.holder) return { kind: as, lease: holderLease(task.holder), owner: task.instance };
    if (as === 'holds') return { kind: 'none' };
    // No lease: a process of this host is judged by its pid; one of another host cannot be judged from here.
    return task.host === hostname() && task.pid > 0 && !isAliveHere(task.pid) ? { kind: 'none' } : undefined;
  };
  const read = async (id: string): Promise<Receipt | undefined> =>
    ((await store.keyv.get(keyOf(id))) as { receipt: Receipt } | undefined)?.receipt;
  const put = (id: string, receipt: Receipt, fence: Fence): Promise<boolean> =>
    write(keyOf(id), { receipt, at: Date.now(), pid: process.pid }, RETAIN_MS, fence, true);

  return {
    read,
    async deliver(id, task) {
      if (await put(id, 'delivered', fenceOf(task, 'holds')!)) return true;
      return (await read(id)) === 'delivered';
    },
    async judge(id, task) {
      const fence = fenceOf(task, 'lost');
      if (!fence) return read(id);
      // Only an answer can be undelivered (an unanswered question is abandoned the usual way); its answerer judges
      // again if it lands after this read.
      const { request, answer } = await store.getEntry(id);
      if (!answer || answer.by === 'expiry') return read(id);
      if (!(await put(id, 'undelivered', fence))) return read(id);
      if (request) await markAbandoned(store, request, task);
      return 'undelivered';
    },
  };
}

const REASON = 'answered after the daemon holding the call died, so the answer could not be delivered';

/** The question shows abandoned, beside its answer: nothing will use that answer. */
async function markAbandoned(store: BrokerStore, request: ElicitRequest, task: TaskRecord): Promise<void> {
  const ttl = Math.max(request.expiresAt - Date.now(), 0) + RETAIN_MS;
  await store.keyv.set(`q:${request.id}`, { ...request, state: 'abandoned', abandonedReason: REASON }, ttl);
  await store.appendEvent(
    {
      kind: 'elicit.abandoned',
      at: Date.now(),
      elicit: request.id,
      trace: request.trace,
      ...(request.parent ? { parent: request.parent } : {}),
      session: request.session,
      server: request.server,
      tool: request.tool,
      pid: process.pid,
      data: { reason: REASON, undelivered: true, holderPid: task.pid },
    },
    ttl,
  );
}

/** The refusal an answerer gets when its answer reached no call. */
export function undelivered(id: string, task: TaskRecord): McpxError {
  return new McpxError(
    'ELICITATION_ABANDONED',
    `question ${id} was abandoned (${REASON}: the daemon pid ${task.pid} is gone); nothing will use the answer: run the call again`,
    { data: { id, reason: REASON, task: task.id } },
  );
}

/** How long an answerer waits for a receipt: a dead holder's lease (default 15 s) lapses within it. */
export function deliveryBoundMs(leaseMs = 15_000): number {
  return 2 * leaseMs + 1_000;
}

export interface DeliveryDeps {
  broker: Pick<Broker, 'get'>;
  tasks: Pick<TaskStore, 'get'>;
  receipts: Receipts;
  /** How long to wait for the holder's receipt: its lease lapses within this once it is dead. */
  boundMs: number;
}

/**
 * After an accepted answer: resolves once the holder of a legacy call passed it on, or throws ELICITATION_ABANDONED
 * once the holder is found dead first (the question is then abandoned). 'not-held' for a question no held legacy
 * call waits on; 'unconfirmed' when the holder could neither be heard from nor judged within `boundMs`.
 */
export async function confirmDelivery(deps: DeliveryDeps, id: string): Promise<Delivery> {
  const request = await deps.broker.get(id);
  if (!request || request.era !== 'legacy' || !request.task) return 'not-held';
  const task = await deps.tasks.get(request.task);
  if (!task) return 'not-held';
  const until = Date.now() + deps.boundMs;
  // The holder answers in milliseconds when alive; a dead one is judged once its lease lapses.
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    const receipt = (await deps.receipts.read(id)) ?? (await deps.receipts.judge(id, task));
    if (receipt === 'delivered') return 'delivered';
    if (receipt === 'undelivered') throw undelivered(id, task);
    if (Date.now() >= until) return 'unconfirmed';
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
