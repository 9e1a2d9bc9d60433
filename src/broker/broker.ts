/**
 * The broker: a question is state with an id, a session and a deadline, answered once by anyone.
 * The answer row is the claim: respond, expiry and every process race on one atomic put-if-absent, and the
 * loser reads the winner. The question's own `expiresAt` is authoritative; store TTLs are only retention.
 */
import type { Keyv } from 'keyv';
import { McpxError, isMcpxError } from '../errors.js';
import { stateDir } from '../paths.js';
import { keepSecretContent } from '../secrets/answer.js';
import type { SecretStore } from '../secrets/types.js';
import { newElicitationId } from '../ids.js';
import { DEFAULT_ELICIT_TTL_MS } from '../constants.js';
import {
  abandoned,
  answerOf,
  checkAnswerContent,
  checkRespondInput,
  checkTtl,
  compact,
  eventFor,
  forbidden,
  newRequest,
  notFound,
  refuseAnswered,
  stateOf,
} from './records.js';
import { createExpiry } from './expiry.js';
import { personOnlyRefusal } from './person-only.js';
import { awaitAnswer, type WaitDeps } from './waiter.js';
import { offerGone, putOffer } from './offers.js';
import { createOpenWatches } from './open-watches.js';
import { askOpenHooks, noHooksSaid, writeQuestion, type OpenHook } from './open-hooks.js';
import { auditOf, listPending, type ListingDeps } from './listing.js';
import { systemClock } from './clock.js';
import { toBrokerStore } from './store.js';
import type {
  AuditQuery,
  Broker,
  BrokerEvent,
  BrokerOptions,
  BrokerStore,
  ElicitRequest,
  OpenRequestInput,
  Elicitation,
  PendingFilter,
  RespondInput,
  StoredAnswer,
} from './types.js';

const DEFAULT_RETAIN_MS = 7 * 24 * 60 * 60 * 1000;
/** How many open questions a broker remembers (a respond to one of them skips its read). */
const KNOWN_MAX = 10_000;
/** How long a question opened here stays watched for the wait that usually follows at once (ms). */
const OPEN_WATCH_MS = 1_000;

/** A broker and the store it keeps its questions in (hosts keep their own records beside them). */
export interface StoreBroker extends Broker {
  readonly store: BrokerStore;
}

/** Answers claimed by a broker's respond or expiry: that broker tells its own subscribers (and no other broker does). */
const brokerClaims = new WeakSet<BrokerEvent>();

/** Creates a broker over a keyv store (a fresh memory store by default). */
export function createBroker(options: BrokerOptions = {}): StoreBroker {
  const clock = options.clock ?? systemClock;
  const ownsStore = options.store === undefined;
  const store = toBrokerStore(options.store as BrokerStore | Keyv | undefined);
  const ttlMs = checkTtl(options.ttlMs ?? DEFAULT_ELICIT_TTL_MS);
  const retainMs = options.retainMs ?? DEFAULT_RETAIN_MS;
  const own =
    typeof options.session === 'string' ? { session: options.session, sessionSource: 'explicit' as const } : options.session;
  const listeners = new Set<(event: BrokerEvent) => void>();
  const openHooks = new Set<OpenHook>();
  const onClose = new Set<() => void>();
  // Questions this broker opened or read, by id: a respond to one of them is a single claim (the claim itself
  // checks, in the store, that the question is still there and not abandoned). Their fields never change.
  const known = new Map<string, ElicitRequest>();
  const remember = (request: ElicitRequest): void => {
    if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value as string);
    known.set(request.id, request);
  };
  let closed = false;
  const rowTtl = (request: ElicitRequest): number => Math.max(1, request.expiresAt - clock.now()) + retainMs;
  const expiry = createExpiry({
    clock,
    store,
    guard,
    rowTtl,
    ownClaims: brokerClaims,
    forget: (id) => known.delete(id),
    notify,
    isClosed: () => closed,
  });
  const openWatches = createOpenWatches(store, { max: KNOWN_MAX, graceMs: OPEN_WATCH_MS });
  // An answer to one of our questions claimed in this process past every broker (a holder taking an offered answer
  // through the store): our subscribers hear of it too, so nobody has to announce it.
  const offClaimed = store.onClaimed((event) => {
    if (brokerClaims.has(event) || event.elicit === undefined || !known.has(event.elicit)) return;
    known.delete(event.elicit);
    expiry.clear(event.elicit);
    notify(event);
  });

  let secrets: Promise<SecretStore> | undefined;
  const secretStore = (): Promise<SecretStore> =>
    (secrets ??= (
      options.secrets ?? (async () => (await import('../secrets/index.js')).openSecretStore({ stateDir: stateDir(process.env) }))
    )());

  const ensureOpen = (): void => {
    if (closed) throw new McpxError('BROKER_CLOSED', 'the broker is closed; create a new one');
  };

  /**
   * Every store call goes through here: a store that fails is STORE_UNAVAILABLE, never "not found". `failed` runs
   * first on a failure (in this one handler: a second `.catch` would be one more promise on the success path).
   */
  function guard<T>(operation: Promise<T>, failed?: () => void): Promise<T> {
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

  const visible = (request: ElicitRequest, asking?: string): boolean => {
    if (options.allowAnySession) return true;
    const session = asking ?? own?.session;
    return session === undefined || session === request.session;
  };

  const eventOf = (event: Omit<BrokerEvent, 'at' | 'pid'> & { at?: number }): BrokerEvent =>
    compact({ ...event, at: event.at ?? clock.now(), pid: process.pid });

  async function emit(event: Omit<BrokerEvent, 'at' | 'pid'> & { at?: number }): Promise<void> {
    const full = eventOf(event);
    await guard(store.appendEvent(full, retainMs));
    notify(full);
  }

  /** Tells in-process subscribers about an event already in the log. */
  function notify(full: BrokerEvent): void {
    for (const listener of listeners) {
      try {
        listener(full);
      } catch {
        // A subscriber's failure is its own; the event is already in the log.
      }
    }
  }

  function withState(request: ElicitRequest, answer: StoredAnswer | undefined): ElicitRequest {
    return { ...request, state: stateOf(request, answer, clock.now()) };
  }

  /** The question (visible to this session) and its answer, in one read. */
  async function load(id: string, asking?: string): Promise<{ request: ElicitRequest; answer?: StoredAnswer }> {
    const { request, answer } = await guard(store.getEntry(id));
    if (!request) throw notFound(id);
    if (!visible(request, asking)) throw forbidden(id, request.session);
    if (!answer && request.state === 'pending') remember(request);
    return answer ? { request, answer } : { request };
  }

  const takeOpenWatch = (id: string): ReturnType<WaitDeps['takeOpenWatch']> => {
    const seen = openWatches.take(id);
    const request = known.get(id);
    return seen && request && visible(request) ? { request, ...seen } : undefined;
  };
  const waitDeps: WaitDeps = {
    clock,
    store,
    guard,
    load: (id) => load(id),
    takeOpenWatch,
    expire: expiry.expire,
    ensureOpen,
    onClose,
  };
  const listingDeps: ListingDeps = { clock, store, guard, settle: expiry.settle, allowAnySession: options.allowAnySession, own };

  const broker: StoreBroker = {
    store,

    async openRequest(input: OpenRequestInput): Promise<ElicitRequest> {
      ensureOpen();
      const now = clock.now();
      const requestTtl = checkTtl(input.ttlMs ?? ttlMs);
      const filled = {
        id: input.id ?? newElicitationId(),
        session: input.session ?? own?.session ?? 'default',
        sessionSource: input.sessionSource ?? (input.session ? 'explicit' : (own?.sessionSource ?? 'explicit')),
        createdAt: now,
        expiresAt: now + requestTtl,
      };
      const asked = newRequest(input, filled);
      const said =
        openHooks.size === 0
          ? noHooksSaid(asked)
          : await askOpenHooks(openHooks, asked, (task) => newRequest({ ...input, task }, filled), {
              waits: input.waits === true,
            });
      const { request } = said;
      let write: Promise<boolean>;
      let watching: ReturnType<typeof openWatches.begin>;
      let event: BrokerEvent;
      try {
        event = eventFor('elicit.open', request, now, {
          data: { sessionSource: request.sessionSource, expiresAt: request.expiresAt, mode: request.mode },
        });
        // Watched from before the write, so the wait that follows needs no read (open-watches.ts).
        watching = openWatches.begin(request.id);
        write = guard(writeQuestion(store, request, rowTtl(request), event, said), () => watching.drop());
      } catch (error) {
        said.tell(() => Promise.reject(error));
        throw error;
      }
      said.tell(() => write);
      const written = await write;
      if (!written) {
        watching.drop();
        // Opening the same id twice is idempotent: the first question stands.
        const existing = await guard(store.getEntry(request.id));
        if (existing.request) return withState(existing.request, existing.answer);
      } else watching.keep();
      expiry.schedule(request);
      remember(request);
      notify(event);
      return { ...request };
    },

    awaitAnswer: (id: string, awaitOptions?: { signal?: AbortSignal }): Promise<StoredAnswer> =>
      awaitAnswer(waitDeps, id, awaitOptions),

    async respond(input: RespondInput): Promise<StoredAnswer> {
      ensureOpen();
      checkRespondInput(input);
      // A question known here skips the read: the claim below checks in the store that it is still open.
      const cached = known.get(input.id);
      if (cached && !visible(cached, input.session)) throw forbidden(input.id, cached.session);
      const { request, answer: existing } = cached ? { request: cached, answer: undefined } : await load(input.id, input.session);
      if (existing) refuseAnswered(request, existing);
      if (request.state === 'abandoned') throw abandoned(request);
      const now = clock.now();
      if (now >= request.expiresAt) refuseAnswered(request, await expiry.expire(request));
      const refusal = personOnlyRefusal(request, input, now);
      if (refusal) {
        await emit(refusal.event);
        throw refusal.error;
      }
      let content = checkAnswerContent(request, input);
      // A secret is kept before the answer is claimed: if it cannot be kept, nothing is recorded and the question still waits.
      if (request.secret && content !== undefined)
        content = await keepSecretContent(request.secret, content, await secretStore());
      const answering = input.session ?? own?.session;
      const { answer, event } = answerOf(request, input, now, content, answering);
      // A held legacy call's answer counts only once its holder takes it: offered, not claimed (offers.ts).
      if (input.offer && request.era === 'legacy' && request.task)
        return guard(putOffer(store, { answer, event }, rowTtl(request)));
      brokerClaims.add(event);
      if (!(await guard(store.claimAnswer(answer, rowTtl(request), event, { open: true })))) {
        // Lost: to an answer, an abandon, or the question is gone. One read says which.
        known.delete(request.id);
        const current = await guard(store.getEntry(request.id));
        if (current.answer) refuseAnswered(request, current.answer);
        if (!current.request) throw notFound(request.id);
        if (current.request.state === 'abandoned') throw abandoned(current.request);
        throw new McpxError('STORE_UNAVAILABLE', `the ${store.kind} store refused the answer to ${request.id} but holds none`, {
          data: { id: request.id },
        });
      }
      known.delete(request.id);
      expiry.clear(request.id);
      notify(event);
      return { ...answer };
    },

    async get(id: string): Promise<ElicitRequest | undefined> {
      ensureOpen();
      const { request, answer } = await guard(store.getEntry(id));
      if (!request || !visible(request)) return undefined;
      return withState(request, answer ?? (await expiry.settle(request)));
    },

    async lookup(id: string): Promise<StoredAnswer | undefined> {
      ensureOpen();
      const { request, answer } = await guard(store.getEntry(id));
      if (!request || !visible(request)) return undefined;
      return answer ?? expiry.settle(request);
    },

    async pending(filter: PendingFilter = {}): Promise<Elicitation[]> {
      ensureOpen();
      return listPending(listingDeps, filter);
    },

    async abandon(id: string, reason: string): Promise<ElicitRequest> {
      ensureOpen();
      const { request, answer: stored } = await load(id);
      const answer = stored ?? (clock.now() >= request.expiresAt ? await expiry.expire(request) : undefined);
      if (answer) refuseAnswered(request, answer);
      if (request.state === 'abandoned') return request;
      const updated: ElicitRequest = { ...request, state: 'abandoned', abandonedReason: reason };
      // Conditional on no answer, atomically: a respond racing this either lands first (and we refuse) or is refused.
      if (!(await guard(store.updateQuestion(updated, rowTtl(updated))))) {
        const winner = await guard(store.getAnswer(id));
        if (winner) refuseAnswered(request, winner);
        throw new McpxError('STORE_UNAVAILABLE', `the ${store.kind} store refused to abandon ${id} but holds no answer`, {
          data: { id },
        });
      }
      known.delete(id);
      openWatches.forget(id);
      // An answer offered for a held call waits on its holder: its answerer hears of the abandon now.
      if (request.era === 'legacy' && request.task) await offerGone(store, id, rowTtl(updated));
      await emit({
        kind: 'elicit.abandoned',
        elicit: id,
        trace: request.trace,
        parent: request.parent,
        session: request.session,
        server: request.server,
        tool: request.tool,
        data: { reason },
      });
      return updated;
    },

    async recordResumed(input): Promise<void> {
      ensureOpen();
      const known =
        input.parent !== undefined && input.session !== undefined && input.server !== undefined && input.tool !== undefined;
      const request = known ? undefined : await guard(store.getQuestion(input.elicit));
      await emit({
        kind: 'elicit.resumed' as const,
        elicit: input.elicit,
        trace: input.trace,
        parent: input.parent ?? request?.trace,
        session: input.session ?? request?.session,
        server: input.server ?? request?.server,
        tool: input.tool ?? request?.tool,
      });
    },

    async recordEvent(event): Promise<void> {
      ensureOpen();
      if (event.kind !== 'policy.fired' && event.kind !== 'elicit.passed') {
        throw new McpxError(
          'CONFIG_INVALID',
          `recordEvent writes only policy.fired and elicit.passed; ${String(event.kind)} is the broker's own`,
          { data: { kind: event.kind } },
        );
      }
      await emit({ ...event });
    },

    subscribe(listener: (event: BrokerEvent) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    onOpen(hook) {
      openHooks.add(hook);
      return () => openHooks.delete(hook);
    },

    async audit(query: AuditQuery = {}): Promise<BrokerEvent[]> {
      ensureOpen();
      return auditOf(await guard(store.readEvents(query.since)), query);
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      expiry.close();
      known.clear();
      openWatches.close();
      offClaimed();
      for (const closing of [...onClose]) closing();
      listeners.clear();
      openHooks.clear();
      if (ownsStore) await store.close();
    },
  };
  return broker;
}
