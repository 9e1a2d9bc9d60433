/**
 * Compliance cases for `BrokerStore.onClaimed` (part of `mcpx/testing`): a store must tell the listeners on one
 * store object of every answer claimed through it, whoever claimed it. A broker claims through its own respond; a
 * holder of a legacy call claims an answer offered by another process straight through the store (`takeOffer`),
 * past every broker, and the broker that asked hears of it only here. A store whose onClaimed is missing or never
 * calls back leaves that broker's subscribers (an `mcpx serve` forwarding questions, a web inbox) deaf to it.
 */
import { ok, strictEqual } from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { StoreBroker } from '../broker/index.js';
import { readOffer, takeOffer } from '../broker/index.js';
import type { BrokerEvent, OpenRequestInput } from '../broker/index.js';

export interface ClaimedCaseDeps {
  /** Two brokers over two handles of the store, for one case; closed afterwards. */
  pair(body: (a: StoreBroker, b: StoreBroker, session: string) => Promise<void>): Promise<void>;
  question(session: string): OpenRequestInput;
  withTimeout<T>(promise: Promise<T>, what: string): Promise<T>;
}

/** Resolves with the first event a listener on `broker`'s store object hears for `id`. */
function heardOf(broker: StoreBroker, id: string, heard: BrokerEvent[]): { event: Promise<BrokerEvent>; off(): void } {
  let off: () => void = () => undefined;
  const event = new Promise<BrokerEvent>((resolve) => {
    off = broker.store.onClaimed((e) => {
      heard.push(e);
      if (e.elicit === id) resolve(e);
    });
    if (typeof off !== 'function') throw new TypeError('onClaimed must return an unsubscribe function');
  });
  return { event, off: () => off() };
}

export function claimedCases({ pair, question, withTimeout }: ClaimedCaseDeps): Array<{ name: string; run(): Promise<void> }> {
  return [
    {
      name: 'tells onClaimed listeners of an answer a broker claims through the store object, once, until unsubscribed',
      run: () =>
        pair(async (a, b, session) => {
          const heard: BrokerEvent[] = [];
          const { id } = await a.openRequest(question(session));
          const listener = heardOf(a, id, heard);
          try {
            await a.respond({ id, action: 'decline', by: 'cli' });
            const event = await withTimeout(listener.event, 'onClaimed after a respond through the handle');
            strictEqual(event.kind, 'elicit.answered');
            // A losing claim (the question is answered already) is no answer claimed.
            await a.respond({ id, action: 'cancel', by: 'cli' }).catch(() => undefined);
            await b.respond({ id, action: 'cancel', by: 'cli' }).catch(() => undefined);
            strictEqual(heard.filter((e) => e.elicit === id).length, 1, 'one claim, told once');
          } finally {
            listener.off();
          }
          // Unsubscribed: the next claim through the handle is told to a listener still there, not to it.
          const next = await a.openRequest(question(session));
          const still = heardOf(a, next.id, []);
          try {
            await a.respond({ id: next.id, action: 'decline', by: 'cli' });
            await withTimeout(still.event, 'onClaimed of a listener still subscribed');
          } finally {
            still.off();
          }
          ok(!heard.some((e) => e.elicit === next.id), 'an unsubscribed listener was told of a later claim');
        }),
    },
    {
      name: 'tells onClaimed listeners of an answer claimed straight through the store object (a holder taking an offer)',
      run: () =>
        pair(async (a, b, session) => {
          // A held legacy question: another handle's answer is only offered; the holder's handle takes it.
          const task = `tsk-${randomBytes(8).toString('hex')}`;
          const { id } = await a.openRequest({ ...question(session), task });
          await b.respond({ id, action: 'accept', content: { n: 4 }, by: 'api', offer: true });
          const offer = await readOffer(a.store, id);
          ok(offer, 'the offer written on one handle is readable on the other');
          const heard: BrokerEvent[] = [];
          const listener = heardOf(a, id, heard);
          const told: BrokerEvent[] = [];
          const unsubscribe = a.subscribe((e) => told.push(e));
          try {
            ok(await takeOffer(a.store, offer), 'the holder takes the offered answer');
            const event = await withTimeout(listener.event, 'onClaimed after a claim straight through the store');
            strictEqual(event.kind, 'elicit.answered');
            strictEqual((await withTimeout(a.awaitAnswer(id), 'the answer taken')).action, 'accept');
            ok(
              told.some((e) => e.elicit === id && e.kind === 'elicit.answered'),
              "the broker that asked on the handle did not pass the holder's claim to its subscribers",
            );
          } finally {
            unsubscribe();
            listener.off();
          }
        }),
    },
  ];
}
