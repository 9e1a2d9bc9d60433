/** Listing questions (pending, or in any state, filtered and paged) and reading the audit log. */
import { pageOf } from './paging.js';
import { stateOf } from './records.js';
import type {
  AuditQuery,
  BrokerEvent,
  BrokerStore,
  Clock,
  ElicitRequest,
  Elicitation,
  PendingFilter,
  RequestState,
  StoredAnswer,
} from './types.js';

/** What a listing needs of its broker. */
export interface ListingDeps {
  clock: Clock;
  store: BrokerStore;
  guard<T>(operation: Promise<T>): Promise<T>;
  /** The answer, writing the expiry cancel first when the deadline has passed unanswered. */
  settle(request: ElicitRequest): Promise<StoredAnswer | undefined>;
  allowAnySession?: boolean | undefined;
  /** The broker's own session, when it is bound to one. */
  own?: { session: string } | undefined;
}

export async function listPending(deps: ListingDeps, filter: PendingFilter = {}): Promise<Elicitation[]> {
  const { clock, store, guard, settle, own } = deps;
  const states = new Set<RequestState>(
    filter.state === undefined ? ['pending'] : Array.isArray(filter.state) ? filter.state : [filter.state],
  );
  const session = deps.allowAnySession ? filter.session : (own?.session ?? filter.session);
  if (!deps.allowAnySession && own && filter.session !== undefined && filter.session !== own.session) return [];
  const matches = (r: ElicitRequest): boolean =>
    (session === undefined || r.session === session) &&
    (filter.server === undefined || r.server === filter.server) &&
    (filter.tool === undefined || r.tool === filter.tool) &&
    (filter.trace === undefined || r.trace === filter.trace);
  const now = clock.now();
  let found: Array<{ request: ElicitRequest; answer?: StoredAnswer | undefined }>;
  if ([...states].every((s) => s === 'pending' || s === 'abandoned')) {
    // The fast path: the pending index holds only unanswered questions.
    const unanswered = (await guard(store.listUnanswered())).filter(matches);
    // Questions whose deadline passed while nobody watched get their expiry cancel now.
    found = await Promise.all(
      unanswered.map(async (request) => (now >= request.expiresAt ? { request, answer: await settle(request) } : { request })),
    );
  } else {
    const questions = (await guard(store.listQuestions())).filter(matches);
    const answers = await guard(store.getAnswers(questions.map((q) => q.id)));
    found = questions.map((request, i) => ({ request, answer: answers[i] }));
    const lapsed = found.filter((f) => !f.answer && now >= f.request.expiresAt);
    for (const entry of lapsed) entry.answer = await settle(entry.request);
  }
  const sorted = found
    .map(({ request, answer }) => ({
      ...request,
      state: stateOf(request, answer, now),
      timeLeftMs: Math.max(0, request.expiresAt - now),
    }))
    .filter((entry) => states.has(entry.state))
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return filter.limit === undefined && filter.cursor === undefined ? sorted : pageOf(sorted, filter.limit, filter.cursor);
}

/** The events that match the query, in the store's order (write order), the last `limit` of them. */
export function auditOf(all: BrokerEvent[], query: AuditQuery): BrokerEvent[] {
  const events = all.filter(
    (e) =>
      (query.session === undefined || e.session === query.session) &&
      (query.trace === undefined || e.trace === query.trace || e.parent === query.trace) &&
      (query.elicit === undefined || e.elicit === query.elicit),
  );
  // The store's order is write order (a sequence); clocks of two hosts, or one millisecond, cannot order it.
  return query.limit === undefined ? events : events.slice(Math.max(0, events.length - query.limit));
}
