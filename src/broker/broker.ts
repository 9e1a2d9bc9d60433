/**
 * The broker: a question is state with an id, a session and a deadline, answered once by anyone.
 * The answer row is the claim: respond, expiry and every process race on one atomic put-if-absent, and the
 * loser reads the winner. The question's own `expiresAt` is authoritative; store TTLs are only retention.
 */
import { McpxError } from '../errors.js';
import { awaitAnswer } from './waiter.js';
import { auditOf, listPending } from './listing.js';
import { createBrokerCore } from './broker-core.js';
import { abandonQuestion, openQuestion, respondTo } from './operations.js';
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
  RecordedEventKind,
  RespondInput,
  StoredAnswer,
} from './types.js';

/** What `recordEvent` writes: the kinds layers above the broker decide (policy, pipeline, notifications). */
const RECORDED_KINDS: ReadonlySet<string> = new Set<RecordedEventKind>([
  'policy.fired',
  'elicit.passed',
  'notify.sent',
  'notify.failed',
  'notify.skipped',
]);

/** A broker and the store it keeps its questions in (hosts keep their own records beside them). */
export interface StoreBroker extends Broker {
  readonly store: BrokerStore;
}

/** Creates a broker over a keyv store (a fresh memory store by default). */
export function createBroker(options: BrokerOptions = {}): StoreBroker {
  const core = createBrokerCore(options);
  const { store, guard, expiry, ensureOpen, visible, withState, emit, listeners, openHooks } = core;
  const broker: StoreBroker = {
    store,

    openRequest: (input: OpenRequestInput) => openQuestion(core, input),

    awaitAnswer: (id: string, awaitOptions?: { signal?: AbortSignal }): Promise<StoredAnswer> =>
      awaitAnswer(core.waitDeps, id, awaitOptions),

    respond: (input: RespondInput) => respondTo(core, input),

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
      return listPending(core.listingDeps, filter);
    },

    abandon: (id: string, reason: string) => abandonQuestion(core, id, reason),

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
      if (!RECORDED_KINDS.has(event.kind)) {
        throw new McpxError(
          'CONFIG_INVALID',
          `recordEvent writes only ${[...RECORDED_KINDS].join(', ')}; ${String(event.kind)} is the broker's own`,
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
      if (core.closed) return;
      core.closed = true;
      expiry.close();
      core.known.clear();
      core.openWatches.close();
      core.stopClaims();
      for (const closing of [...core.onClose]) closing();
      listeners.clear();
      openHooks.clear();
      if (core.ownsStore) await store.close();
    },
  };
  return broker;
}
