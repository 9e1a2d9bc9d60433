/**
 * What one broker holds and every operation of it uses: the store behind a guard (a failing store is
 * STORE_UNAVAILABLE, never "not found"), the questions it knows, the expiry timers, the open watches, its
 * subscribers and open hooks. broker.ts assembles the operations over it.
 */
import type { Keyv } from 'keyv';
import { McpxError, isMcpxError } from '../errors.js';
import { stateDir } from '../paths.js';
import type { SecretStore } from '../secrets/types.js';
import { DEFAULT_ELICIT_TTL_MS } from '../constants.js';
import { checkTtl, compact, forbidden, notFound, stateOf } from './records.js';
import { createExpiry } from './expiry.js';
import type { WaitDeps } from './waiter.js';
import { createOpenWatches } from './open-watches.js';
import type { OpenHook } from './open-hooks.js';
import type { ListingDeps } from './listing.js';
import { systemClock } from './clock.js';
import { toBrokerStore } from './store.js';
import type { BrokerEvent, BrokerOptions, BrokerStore, Clock, ElicitRequest, StoredAnswer } from './types.js';

const DEFAULT_RETAIN_MS = 7 * 24 * 60 * 60 * 1000;
/** How many open questions a broker remembers (a respond to one of them skips its read). */
const KNOWN_MAX = 10_000;
/** How long a question opened here stays watched for the wait that usually follows at once (ms). */
const OPEN_WATCH_MS = 1_000;

/** Answers claimed by a broker's respond or expiry: that broker tells its own subscribers (and no other broker does). */
export const brokerClaims = new WeakSet<BrokerEvent>();

export interface BrokerCore {
  readonly options: BrokerOptions;
  readonly clock: Clock;
  readonly store: BrokerStore;
  readonly ownsStore: boolean;
  /** The default question deadline. */
  readonly ttlMs: number;
  /** How long records are kept past their deadline. */
  readonly retainMs: number;
  /** The session a session-bound broker serves. */
  readonly own: { session: string; sessionSource: ElicitRequest['sessionSource'] } | undefined;
  readonly listeners: Set<(event: BrokerEvent) => void>;
  readonly openHooks: Set<OpenHook>;
  readonly onClose: Set<() => void>;
  /**
   * Questions this broker opened or read, by id: a respond to one of them is a single claim (the claim itself
   * checks, in the store, that the question is still there and not abandoned). Their fields never change.
   */
  readonly known: Map<string, ElicitRequest>;
  remember(request: ElicitRequest): void;
  /** Responds this broker has under way, by question id: a wait's check read holds off until the respond settles. */
  readonly responding: Map<string, Promise<unknown>>;
  readonly expiry: ReturnType<typeof createExpiry>;
  readonly openWatches: ReturnType<typeof createOpenWatches>;
  readonly waitDeps: WaitDeps;
  readonly listingDeps: ListingDeps;
  /** The store's retention of a question's rows. */
  rowTtl(request: ElicitRequest): number;
  secretStore(): Promise<SecretStore>;
  ensureOpen(): void;
  /** Every store call goes through here: a store that fails is STORE_UNAVAILABLE; `failed` runs first on a failure. */
  guard<T>(operation: Promise<T>, failed?: () => void): Promise<T>;
  /** Whether the asking session (else the broker's own) may see the question. */
  visible(request: ElicitRequest, asking?: string): boolean;
  /** Appends an event to the log, then tells the subscribers. */
  emit(event: Omit<BrokerEvent, 'at' | 'pid'> & { at?: number }): Promise<void>;
  /** Tells in-process subscribers about an event already in the log. */
  notify(event: BrokerEvent): void;
  withState(request: ElicitRequest, answer: StoredAnswer | undefined): ElicitRequest;
  /** The question (visible to this session) and its answer, in one read. */
  load(id: string, asking?: string): Promise<{ request: ElicitRequest; answer?: StoredAnswer }>;
  /** Stops hearing of answers claimed past every broker. */
  stopClaims(): void;
  closed: boolean;
}

export function createBrokerCore(options: BrokerOptions): BrokerCore {
  const clock = options.clock ?? systemClock;
  const store = toBrokerStore(options.store as BrokerStore | Keyv | undefined);
  const retainMs = options.retainMs ?? DEFAULT_RETAIN_MS;
  const known = new Map<string, ElicitRequest>();
  const listeners = new Set<(event: BrokerEvent) => void>();
  const rowTtl = (request: ElicitRequest): number => Math.max(1, request.expiresAt - clock.now()) + retainMs;
  const own =
    typeof options.session === 'string' ? { session: options.session, sessionSource: 'explicit' as const } : options.session;

  function guard<T>(operation: Promise<T>, failed?: () => void): Promise<T> {
    // One handler: a second `.catch` would be one more promise on the success path.
    return operation.catch((error: unknown) => {
      failed?.();
      if (isMcpxError(error)) throw error;
      throw new McpxError(
        'STORE_UNAVAILABLE',
        `the ${store.kind} store failed: ${(error as Error)?.message ?? String(error)}. Check that it is reachable, then retry (an answer that did land wins; a retry is refused as already answered).`,
        {
          cause: error,
          data: { store: store.kind },
        },
      );
    });
  }

  function notify(full: BrokerEvent): void {
    for (const listener of listeners) {
      try {
        listener(full);
      } catch {
        // A subscriber's failure is its own; the event is already in the log.
      }
    }
  }

  let secrets: Promise<SecretStore> | undefined;
  const core: BrokerCore = {
    options,
    clock,
    store,
    ownsStore: options.store === undefined,
    ttlMs: checkTtl(options.ttlMs ?? DEFAULT_ELICIT_TTL_MS),
    retainMs,
    own,
    listeners,
    openHooks: new Set(),
    onClose: new Set(),
    known,
    responding: new Map(),
    remember(request) {
      if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value as string);
      known.set(request.id, request);
    },
    expiry: createExpiry({
      clock,
      store,
      guard,
      rowTtl,
      ownClaims: brokerClaims,
      forget: (id) => known.delete(id),
      notify,
      isClosed: () => core.closed,
    }),
    openWatches: createOpenWatches(store, { max: KNOWN_MAX, graceMs: OPEN_WATCH_MS }),
    waitDeps: undefined as unknown as WaitDeps,
    listingDeps: undefined as unknown as ListingDeps,
    rowTtl,
    secretStore: () =>
      (secrets ??= (
        options.secrets ??
        (async () => (await import('../secrets/index.js')).openSecretStore({ stateDir: stateDir(process.env) }))
      )()),
    ensureOpen() {
      if (core.closed) throw new McpxError('BROKER_CLOSED', 'the broker is closed; create a new one');
    },
    guard,
    visible(request, asking) {
      if (options.allowAnySession) return true;
      const session = asking ?? own?.session;
      return session === undefined || session === request.session;
    },
    async emit(event) {
      const full = compact<BrokerEvent>({ ...event, at: event.at ?? clock.now(), pid: process.pid });
      await guard(store.appendEvent(full, retainMs));
      notify(full);
    },
    notify,
    withState: (request, answer) => ({ ...request, state: stateOf(request, answer, clock.now()) }),
    async load(id, asking) {
      const { request, answer } = await guard(store.getEntry(id));
      if (!request) throw notFound(id);
      if (!core.visible(request, asking)) throw forbidden(id, request.session);
      if (!answer && request.state === 'pending') core.remember(request);
      return answer ? { request, answer } : { request };
    },
    stopClaims: () => undefined,
    closed: false,
  };
  // An answer to one of our questions claimed in this process past every broker (a holder taking an offered answer
  // through the store): our subscribers hear of it too, so nobody has to announce it.
  core.stopClaims = store.onClaimed((event: BrokerEvent) => {
    if (brokerClaims.has(event) || event.elicit === undefined || !known.has(event.elicit)) return;
    known.delete(event.elicit);
    core.expiry.clear(event.elicit);
    notify(event);
  });
  Object.assign(core, { waitDeps: waitDepsOf(core), listingDeps: listingDepsOf(core) });
  return core;
}

function waitDepsOf(core: BrokerCore): WaitDeps {
  return {
    clock: core.clock,
    store: core.store,
    guard: core.guard,
    load: (id) => core.load(id),
    takeOpenWatch: (id) => {
      const seen = core.openWatches.take(id);
      const request = core.known.get(id);
      return seen && request && core.visible(request) ? { request, ...seen } : undefined;
    },
    respondingHere: (id) => core.responding.get(id),
    expire: core.expiry.expire,
    ensureOpen: core.ensureOpen,
    onClose: core.onClose,
  };
}

function listingDepsOf(core: BrokerCore): ListingDeps {
  return {
    clock: core.clock,
    store: core.store,
    guard: core.guard,
    settle: core.expiry.settle,
    allowAnySession: core.options.allowAnySession,
    own: core.own,
  };
}
