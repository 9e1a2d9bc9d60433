/**
 * An offered answer: how an answer to a question whose call another process holds open (a legacy call) is given.
 * It is not the answer yet: the holder takes it (then it is claimed as any answer, answer-once) only once it has
 * recorded that it passes it on (`tasks/delivery.ts`). Found dead first, the holder never takes it, the question is
 * abandoned and the answer refused: an answer that nothing can deliver is never recorded.
 */
import { McpxError } from '../errors.js';
import type { BrokerEvent, BrokerStore, StoredAnswer } from './types.js';

export interface Offer {
  answer: StoredAnswer;
  event: BrokerEvent;
  /** Until when the answer row is kept once taken (the broker's retention of the question). */
  keepUntil: number;
}

const keyOf = (id: string): string => `o:${id}`;

/** Writes the offer unless one is there (the first offer wins, as the first answer does), waking its holder. */
export async function putOffer(store: BrokerStore, offer: Omit<Offer, 'keepUntil'>, ttlMs: number): Promise<StoredAnswer> {
  if (await store.putIfAbsent(keyOf(offer.answer.id), { ...offer, keepUntil: Date.now() + ttlMs }, ttlMs, { wake: true }))
    return { ...offer.answer };
  throw new McpxError(
    'ELICITATION_ALREADY_ANSWERED',
    `question ${offer.answer.id} already has an answer on its way to the call that asked; a question is answered once`,
    { data: { id: offer.answer.id } },
  );
}

/** Calls back when an offer for `id` may have been written, in any process (the store's wake channel). */
export const watchOffer = (store: BrokerStore, id: string, onOffer: () => void): (() => void) =>
  store.watchRow(keyOf(id), onOffer);

const goneKey = (id: string): string => `og:${id}`;

/**
 * The question was abandoned (its call ended, or its holder let it go): when an offer stands, its answerer is woken
 * in any process (`watchOfferGone`), so it learns at once that nothing will take the answer. Best effort: an
 * answerer not woken still finds the question abandoned at its next look.
 */
export async function offerGone(store: BrokerStore, id: string, ttlMs: number): Promise<void> {
  try {
    if (await readOffer(store, id)) await store.putIfAbsent(goneKey(id), { at: Date.now() }, ttlMs, { wake: true });
  } catch {
    // The abandon stands; the wake is only a shortcut.
  }
}

/** Calls back when the question of an offer may have been abandoned (`offerGone`), in any process. */
export const watchOfferGone = (store: BrokerStore, id: string, onGone: () => void): (() => void) =>
  store.watchRow(goneKey(id), onGone);

export const readOffer = async (store: BrokerStore, id: string): Promise<Offer | undefined> =>
  (await store.keyv.get<Offer>(keyOf(id))) ?? undefined;

/** The holder: claims the offered answer (false when another answer, an expiry or an abandon won). */
export async function takeOffer(store: BrokerStore, offer: Offer): Promise<boolean> {
  return store.claimAnswer(offer.answer, Math.max(1, offer.keepUntil - Date.now()), offer.event, { open: true });
}

/** Whether a stored answer is the one offered (the holder took it). */
export const isOffered = (answer: StoredAnswer, offered: StoredAnswer): boolean =>
  answer.at === offered.at && answer.pid === offered.pid && answer.by === offered.by && answer.action === offered.action;
