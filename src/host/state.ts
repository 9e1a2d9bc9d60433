/**
 * What every durable host stands on: the store, the broker over it, the task records beside the questions, the
 * lease table (shared stores only) and the held responder through which any process answers a question.
 */
import { createBroker, type StoreBroker } from '../broker/index.js';
import type { BrokerStore } from '../broker/index.js';
import { heldResponder } from '../tasks/delivery.js';
import { openLeases, type Leases } from '../tasks/leases.js';
import { createTaskStore, type TaskStore } from '../tasks/task-store.js';

export interface HostState {
  readonly store: BrokerStore;
  readonly broker: StoreBroker;
  readonly tasks: TaskStore;
  /** The lease table on a store several hosts share (Redis, Postgres), opened at first need; undefined elsewhere. */
  leases(): Leases | undefined;
  /** Answers as any answerer in another process does: a held legacy call's holder passes it on (tasks/delivery.ts). */
  readonly respondHeld: ReturnType<typeof heldResponder>;
  /** Closes the broker, and the store when the state owns it. */
  close(): Promise<void>;
}

export interface HostStateOptions {
  store: BrokerStore;
  /** Close the store with the state (it was opened for it). */
  ownsStore: boolean;
  /** The broker's default question deadline. */
  ttlMs?: number;
  /** How long a lease lasts unrenewed (MCPX_LEASE_MS): bounds how long an answerer waits for a holder's receipt. */
  leaseMs?: number;
}

export function openHostState(options: HostStateOptions): HostState {
  const { store } = options;
  const broker = createBroker({ store, allowAnySession: true, ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}) });
  let leases: { table: Leases | undefined } | undefined;
  return {
    store,
    broker,
    tasks: createTaskStore(store.keyv),
    leases: () => (leases ??= { table: openLeases(store) }).table,
    respondHeld: heldResponder(broker, options.leaseMs),
    async close() {
      await broker.close();
      if (options.ownsStore) await store.close();
    },
  };
}
