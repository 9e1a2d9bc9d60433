/**
 * A question's deadline: a timer per question opened here, and the cancel written by 'expiry' on the requester's
 * behalf once the deadline passes unanswered. Every process may race to write it; exactly one wins and logs
 * elicit.expired, the others read the winner.
 */
import { McpxError } from '../errors.js';
import { eventFor } from './records.js';
import type { BrokerEvent, BrokerStore, Clock, ElicitRequest, StoredAnswer } from './types.js';

export interface ExpiryDeps {
  clock: Clock;
  store: BrokerStore;
  guard<T>(operation: Promise<T>): Promise<T>;
  rowTtl(request: ElicitRequest): number;
  /** The events this process's brokers claimed (their own subscribers hear of them from them). */
  ownClaims: WeakSet<BrokerEvent>;
  /** The question is answered: the broker stops remembering it as open. */
  forget(id: string): void;
  /** Tells the broker's subscribers about an event already in the log. */
  notify(event: BrokerEvent): void;
  isClosed(): boolean;
}

export interface Expiry {
  /** Answers cancel by 'expiry'; resolves with the answer that stands (ours, or the one that won). */
  expire(request: ElicitRequest): Promise<StoredAnswer>;
  /** The answer, writing the expiry cancel first when the deadline has passed unanswered. */
  settle(request: ElicitRequest): Promise<StoredAnswer | undefined>;
  schedule(request: ElicitRequest): void;
  clear(id: string): void;
  /** Stops every timer. */
  close(): void;
}

export function createExpiry(deps: ExpiryDeps): Expiry {
  const { clock, store, guard, rowTtl } = deps;
  const expiryTimers = new Map<string, unknown>();

  const expire = async (request: ElicitRequest): Promise<StoredAnswer> => {
    const now = clock.now();
    const answer: StoredAnswer = {
      id: request.id,
      action: 'cancel',
      by: 'expiry',
      at: Math.max(now, request.expiresAt),
      pid: process.pid,
    };
    const event = eventFor('elicit.expired', request, answer.at, {
      action: 'cancel',
      by: 'expiry',
      answeredAfterMs: answer.at - request.createdAt,
    });
    deps.ownClaims.add(event);
    if (await guard(store.claimAnswer(answer, rowTtl(request), event))) {
      deps.forget(request.id);
      clear(request.id);
      deps.notify(event);
      return answer;
    }
    const winner = await guard(store.getAnswer(request.id));
    if (!winner)
      throw new McpxError(
        'STORE_UNAVAILABLE',
        `the ${store.kind} store lost the answer to ${request.id} it just refused to overwrite`,
        { data: { id: request.id } },
      );
    return winner;
  };

  const settle = async (request: ElicitRequest): Promise<StoredAnswer | undefined> => {
    const answer = await guard(store.getAnswer(request.id));
    if (answer || clock.now() < request.expiresAt) return answer;
    return expire(request);
  };

  const schedule = (request: ElicitRequest): void => {
    const handle = clock.setTimer(() => {
      expiryTimers.delete(request.id);
      if (!deps.isClosed()) void settle(request).catch(() => undefined);
    }, request.expiresAt - clock.now());
    expiryTimers.set(request.id, handle);
  };

  const clear = (id: string): void => {
    const handle = expiryTimers.get(id);
    if (handle !== undefined) clock.clearTimer(handle);
    expiryTimers.delete(id);
  };

  const close = (): void => {
    for (const handle of expiryTimers.values()) clock.clearTimer(handle);
    expiryTimers.clear();
  };

  return { expire, settle, schedule, clear, close };
}
