/** Waiting for a question's answer: woken by the store's watch, a re-read, the deadline, an abort or a close. */
import { McpxError } from '../errors.js';
import { abandoned } from './records.js';
import type { BrokerStore, Clock, ElicitRequest, StoredAnswer } from './types.js';

/** A wait that skipped its read (the question was watched since its open) reads after this long unanswered (ms). */
const CHECK_AFTER_MS = 50;

/** What a wait needs of its broker. */
export interface WaitDeps {
  clock: Clock;
  store: BrokerStore;
  /** Maps a store failure to STORE_UNAVAILABLE. */
  guard<T>(operation: Promise<T>): Promise<T>;
  /** The question (visible to this session) and its answer, in one read. */
  load(id: string): Promise<{ request: ElicitRequest; answer?: StoredAnswer }>;
  /** For a question this broker opened and watched since before its write: it, and what that watch saw (no read). */
  takeOpenWatch(id: string): { request: ElicitRequest; answer?: StoredAnswer; hinted: boolean } | undefined;
  /** A respond to this question under way in this broker, if any: its answer reaches the wait without a read. */
  respondingHere(id: string): Promise<unknown> | undefined;
  /** Answers cancel by 'expiry'; the winner's answer if another process got there first. */
  expire(request: ElicitRequest): Promise<StoredAnswer>;
  ensureOpen(): void;
  /** Called when the broker closes: each wait still open rejects with BROKER_CLOSED. */
  onClose: Set<() => void>;
}

/** Resolves with the question's answer (the expiry cancel at its deadline); rejects if it is abandoned. */
export async function awaitAnswer(
  deps: WaitDeps,
  id: string,
  awaitOptions: { signal?: AbortSignal } = {},
): Promise<StoredAnswer> {
  const { clock, store, guard, load, takeOpenWatch, respondingHere, expire, ensureOpen, onClose } = deps;
  ensureOpen();
  const signal = awaitOptions.signal;
  signal?.throwIfAborted();
  let resolve!: (answer: StoredAnswer) => void;
  let reject!: (error: unknown) => void;
  const result = new Promise<StoredAnswer>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // The caller only holds `result` once the first read returns; a rejection before that (an abort,
  // a close) must not surface as an unhandled rejection. The caller still sees it.
  result.catch(() => undefined);
  let done = false;
  const deadline: { timer?: unknown; check?: unknown } = {};
  const finish = (settleWith: () => void): void => {
    if (done) return;
    done = true;
    unwatch();
    if (deadline.timer !== undefined) clock.clearTimer(deadline.timer);
    if (deadline.check !== undefined) clock.clearTimer(deadline.check);
    signal?.removeEventListener('abort', aborted);
    onClose.delete(closing);
    settleWith();
  };
  const reread = (): void => {
    guard(store.getAnswer(id)).then(
      (answer) => answer && finish(() => resolve(answer)),
      (error: unknown) => finish(() => reject(error)),
    );
  };
  const checkAfterResponds = (): void => {
    if (done) return;
    const responding = respondingHere(id);
    if (!responding) return reread();
    const after = (): void => void (!done && reread());
    responding.then(after, after);
  };
  const aborted = (): void => finish(() => reject(signal?.reason ?? new DOMException('The wait was aborted', 'AbortError')));
  const closing = (): void =>
    finish(() => reject(new McpxError('BROKER_CLOSED', `the broker closed while waiting for ${id}`, { data: { id } })));
  // Subscribe first, then read: an answer landing in between is seen by one or the other.
  const unwatch = store.watch(id, (answer) => (answer ? finish(() => resolve(answer)) : reread()));
  signal?.addEventListener('abort', aborted, { once: true });
  onClose.add(closing);
  let loaded: { request: ElicitRequest; answer?: StoredAnswer };
  // Our watch is live: the one started before the question's write hands over what it saw, in place of the read.
  const watched = takeOpenWatch(id);
  if (watched) {
    loaded = watched.answer ? { request: watched.request, answer: watched.answer } : { request: watched.request };
    if (watched.hinted && !watched.answer) reread();
    // Read once all the same if no answer came at once: a store that went down fails the wait as the read would. A
    // respond of this process under way (slow on a loaded machine) is waited for first: its answer needs no read.
    else if (!watched.answer) deadline.check = clock.setTimer(() => checkAfterResponds(), CHECK_AFTER_MS);
  } else {
    try {
      loaded = await load(id);
      ensureOpen();
    } catch (error) {
      finish(() => reject(error));
      return result;
    }
  }
  const { request, answer } = loaded;
  if (answer) finish(() => resolve(answer));
  else if (request.state === 'abandoned') finish(() => reject(abandoned(request)));
  if (done) return result;
  deadline.timer = clock.setTimer(
    () => {
      if (done) return;
      guard(store.getQuestion(id))
        .then((current) =>
          current?.state === 'abandoned'
            ? finish(() => reject(abandoned(current)))
            : expire(current ?? request).then((answer) => finish(() => resolve(answer))),
        )
        .catch((error: unknown) => finish(() => reject(error)));
    },
    request.expiresAt - clock.now(),
    { keepAlive: true },
  );
  return result;
}
