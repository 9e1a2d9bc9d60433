/**
 * A legacy answer is good only while the process holding its call lives to pass it on (the call is an open
 * connection there), so such an answer is delivered or refused, never accepted and lost. An answerer in another
 * process offers it (`broker/offers.ts`); the holder writes the receipt `r:<id>` = delivered, then takes the offer
 * (it becomes the answer) and passes it on. Whoever finds the holder dead first writes undelivered, abandons the
 * question and refuses the answer, which was never recorded. Both receipts are put-if-absent and fenced in the
 * store by the holder's lease (Redis, Postgres), or judged by the holder's pid on this host (SQLite, memory), so
 * exactly one stands.
 */
import { hostname } from 'node:os';
import type { StoreBroker } from '../broker/index.js';
import { isOffered, offerGone, readOffer, takeOffer, watchOffer, watchOfferGone } from '../broker/index.js';
import { abandoned, eventFor, notFound, refuseAnswered } from '../broker/index.js';
import type { Broker, BrokerStore, ElicitRequest, RespondInput, StoredAnswer } from '../broker/index.js';
import { isMcpxError, McpxError } from '../errors.js';
import { openFencedWrite, type Fence } from './fenced-write.js';
import { leaseOf } from './handoff.js';
import { processAlive } from '../local/process-alive.js';
import { createTaskStore, type TaskStore } from './task-store.js';
import type { TaskRecord } from './types.js';

export type Receipt = 'delivered' | 'undelivered';
/** What became of an answer: passed on to its call, or not a held legacy call's (nothing to confirm), or unknown. */
export type Delivery = 'delivered' | 'not-held' | 'unconfirmed';

const RETAIN_MS = 7 * 24 * 3600_000;
const keyOf = (id: string): string => `r:${id}`;
const REASON = 'answered after the process holding the call died, so the answer could not be delivered';

export interface Receipts {
  readonly store: BrokerStore;
  /** The holder, before passing an answer on: false when it may not (its lease is gone, or the answer was refused). */
  deliver(id: string, task: TaskRecord): Promise<boolean>;
  /** Anyone: true once the task's holder is judged dead and the receipt undelivered stands. */
  refuse(id: string, task: TaskRecord): Promise<boolean>;
  read(id: string): Promise<Receipt | undefined>;
}

export function openReceipts(store: BrokerStore): Receipts {
  const write = openFencedWrite(store);
  const leased = store.kind === 'redis' || store.kind === 'postgres';
  const fenceOf = (task: TaskRecord, as: 'holds' | 'lost'): Fence | undefined => {
    if (leased && task.instance && task.holder) return { kind: as, lease: leaseOf(task.holder), owner: task.instance };
    if (as === 'holds') return { kind: 'none' };
    // No lease: a process of this host is judged by its pid; one of another host cannot be judged from here.
    return task.host === hostname() && task.pid > 0 && !processAlive(task.pid) ? { kind: 'none' } : undefined;
  };
  const read = async (id: string): Promise<Receipt | undefined> =>
    ((await store.keyv.get(keyOf(id))) as { receipt: Receipt } | undefined)?.receipt;
  const put = (id: string, receipt: Receipt, fence: Fence): Promise<boolean> =>
    write(keyOf(id), { receipt, at: Date.now(), pid: process.pid }, RETAIN_MS, fence, true);
  return {
    store,
    read,
    async deliver(id, task) {
      return (await put(id, 'delivered', fenceOf(task, 'holds')!)) || (await read(id)) === 'delivered';
    },
    async refuse(id, task) {
      const fence = fenceOf(task, 'lost');
      if (fence && (await put(id, 'undelivered', fence))) return true;
      return (await read(id)) === 'undelivered';
    },
  };
}

/** The receipts of a broker's store, when it has one (every holder's runner writes them there). */
export function receiptsOf(broker: Broker): Receipts | undefined {
  const store = (broker as Partial<StoreBroker>).store;
  return store ? openReceipts(store) : undefined;
}

/** What a runner records on its tasks to name its holder: others judge from it whether the holder lives. */
export function heldBy(o: { holder?: string | undefined; instance?: string | undefined; hostName?: string | undefined }) {
  return {
    ...(o.holder ? { holder: o.holder } : {}),
    ...(o.instance ? { instance: o.instance } : {}),
    host: o.hostName ?? hostname(),
  };
}

/**
 * The holder, while its call waits on `id`: takes an answer offered by another process once the receipt says it
 * is passed on (the broker's awaitAnswer then delivers it, and its subscribers hear of it: `BrokerStore.onClaimed`).
 * Woken by the store when an offer is written (no polling), until the signal aborts. True once taken.
 */
export async function takeOffers(receipts: Receipts, task: TaskRecord, id: string, signal: AbortSignal): Promise<boolean> {
  const { store } = receipts;
  return untilWoken(
    (wake) => {
      const unwatch = watchOffer(store, id, wake);
      signal.addEventListener('abort', wake, { once: true });
      return () => {
        unwatch();
        signal.removeEventListener('abort', wake);
      };
    },
    async () => {
      if (signal.aborted) return { value: false };
      const offer = await readOffer(store, id);
      if (offer) return { value: (await receipts.deliver(id, task)) && (await takeOffer(store, offer)) };
      return undefined;
    },
  );
}

/**
 * Runs `round` until it settles (returns `{ value }`), each next round once woken. `watch` arms the wake once,
 * before the first round, and returns its unwatch; each round's wake is armed before the round reads, so a write
 * landing while it reads wakes the next round rather than being missed. A round may also wake the next itself.
 */
async function untilWoken<T>(
  watch: (wake: () => void) => () => void,
  round: (wake: () => void) => Promise<{ value: T } | undefined>,
): Promise<T> {
  let wake = (): void => undefined;
  const wakeNow = (): void => wake();
  const unwatch = watch(wakeNow);
  try {
    for (;;) {
      // Armed before the round's read: a write landing while it reads wakes the next round.
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const settled = await round(wakeNow);
      if (settled) return settled.value;
      await woken;
    }
  } finally {
    unwatch();
  }
}

/** The question shows abandoned (conditional on no answer, as any abandon): nothing took its answer. */
async function abandonUndelivered(store: BrokerStore, request: ElicitRequest, task: TaskRecord): Promise<void> {
  const ttl = Math.max(request.expiresAt - Date.now(), 0) + RETAIN_MS;
  if (!(await store.updateQuestion({ ...request, state: 'abandoned', abandonedReason: REASON }, ttl))) return;
  await offerGone(store, request.id, ttl);
  const event = eventFor('elicit.abandoned', request, Date.now(), {
    data: { reason: REASON, undelivered: true, holderPid: task.pid },
  });
  await store.appendEvent({ ...event, pid: process.pid }, ttl);
}

/** The refusal an answerer gets when its answer reached no call. */
export function undelivered(id: string, task: TaskRecord): McpxError {
  return new McpxError(
    'ELICITATION_ABANDONED',
    `question ${id} was abandoned (${REASON}: the process pid ${task.pid} is gone); nothing will use the answer: run the call again`,
    { data: { id, reason: REASON, task: task.id } },
  );
}

/** How long an answerer waits for the holder: a dead holder's lease (default 15 s) lapses within it. */
export function deliveryBoundMs(leaseMs = 15_000): number {
  return 2 * leaseMs + 1_000;
}

/** How often an answerer looks whether the holder died: a fifteenth of the lease (1 s by default). */
export function deliveryCheckMs(leaseMs = 15_000): number {
  return Math.max(50, leaseMs / 15);
}

export interface DeliveryDeps {
  tasks: Pick<TaskStore, 'get'>;
  receipts: Receipts;
  /** How long to wait for the holder: its lease lapses within this once it is dead. */
  boundMs: number;
  /** How often to look whether the holder died meanwhile. */
  checkMs: number;
}

/**
 * After `respond({ offer: true })`: resolves once the holder of a legacy call took the answer and passed it on,
 * or throws ELICITATION_ABANDONED once the holder is found dead first (the question is then abandoned, the
 * answer never recorded). 'not-held' for a question no held call waits on (its answer was claimed as usual);
 * 'unconfirmed' when the holder could neither be heard from nor judged within `boundMs`.
 * A live holder's take is heard on the store's answer wake (it claims the offer as the answer: pg_notify, PUBLISH,
 * data_version, in process), and its abandon of the question on the offer's gone row (`offerGone`), so nothing
 * polls for either.
 */
export async function confirmDelivery(deps: DeliveryDeps, id: string, offered: StoredAnswer): Promise<Delivery> {
  const { store } = deps.receipts;
  const first = await store.getQuestion(id);
  // Not a held legacy call's: respond claimed the answer as usual.
  if (!first || first.era !== 'legacy' || !first.task) return 'not-held';
  const task = await deps.tasks.get(first.task);
  const until = Date.now() + deps.boundMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return untilWoken<Delivery>(
    (wake) => {
      // Armed before the first read: an answer claimed, or the question abandoned (offerGone), while we read
      // wakes the next round.
      const unwatchAnswer = store.watch(id, wake);
      const unwatchGone = watchOfferGone(store, id, wake);
      return () => {
        clearTimeout(timer);
        unwatchAnswer();
        unwatchGone();
      };
    },
    async (wake) => {
      // The last round's check, if it did not fire: the next is set below.
      clearTimeout(timer);
      const { request, answer } = await store.getEntry(id);
      if (answer) {
        if (isOffered(answer, offered)) return { value: 'delivered' };
        refuseAnswered(request!, answer);
      }
      if (!request) throw notFound(id);
      // Its holder closed, or was taken over: the offer was never taken.
      if (request.state === 'abandoned') throw abandoned(request);
      if (task && (await deps.receipts.read(id)) !== 'delivered' && (await deps.receipts.refuse(id, task))) {
        await abandonUndelivered(store, request, task);
        throw undelivered(id, task);
      }
      const left = until - Date.now();
      if (!task || left <= 0) return { value: 'unconfirmed' };
      // Nothing wakes anyone when a holder dies (a lapsed lease is a write that did not come, a gone pid writes
      // nothing): that is only seen by looking again, now and then. A live holder's abandon wakes us (offerGone).
      timer = setTimeout(wake, Math.min(deps.checkMs, left));
      return undefined;
    },
  );
}

export interface Delivered {
  answer: StoredAnswer;
  delivery: Delivery;
}

/**
 * Whether a standing offer is this answer again: the same answerer (process, user, session, surface) giving the same
 * answer, as a client does that retries through another host after the first died before replying.
 */
export function sameAnswer(offered: StoredAnswer, input: RespondInput, pid: number): boolean {
  return (
    offered.action === input.action &&
    offered.by === input.by &&
    offered.pid === (input.pid ?? pid) &&
    offered.user === input.user &&
    (input.session === undefined || offered.session === input.session) &&
    JSON.stringify(offered.content) === JSON.stringify(input.content)
  );
}

/**
 * How every answerer in another process answers: `respond` with an offer, then confirmDelivery. When an offer
 * already stands, its fate is learnt first: the same answer again (a retry whose first reply was lost) gets that
 * fate as its own, delivered or ELICITATION_ABANDONED; another answer is refused as a second answer once the first
 * landed, or as abandoned if it could not.
 */
export function heldResponder(
  broker: Broker & Pick<StoreBroker, 'store'>,
  leaseMs?: number,
): (input: RespondInput) => Promise<Delivered> {
  const deps = {
    tasks: createTaskStore(broker.store.keyv),
    receipts: openReceipts(broker.store),
    boundMs: deliveryBoundMs(leaseMs),
    checkMs: deliveryCheckMs(leaseMs),
  };
  return async (input) => {
    let answer: StoredAnswer;
    try {
      answer = await broker.respond({ ...input, offer: true });
    } catch (error) {
      if (!isMcpxError(error, 'ELICITATION_ALREADY_ANSWERED')) throw error;
      const first = (await readOffer(broker.store, input.id))?.answer;
      if (!first) throw error;
      const delivery = await confirmDelivery(deps, input.id, first);
      if (sameAnswer(first, input, process.pid)) return { answer: first, delivery };
      throw error;
    }
    return { answer, delivery: await confirmDelivery(deps, input.id, answer) };
  };
}
