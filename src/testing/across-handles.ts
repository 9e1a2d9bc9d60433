/**
 * Compliance cases (part of `mcpx/testing`): what one handle does to a question, every other handle sees: waiters
 * woken, expiry answered once, pending lists, refused answers.
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import type { CaseKit, ComplianceCase } from './kit.js';

/** A question opened, answered, expired or refused on one handle, as the other sees it. */
export function acrossHandlesCases({ pair, question, codeOf, withTimeout }: CaseKit): ComplianceCase[] {
  return [
    {
      name: 'wakes a waiter on another handle when the question is answered',
      run: () =>
        pair(async (a, b, session) => {
          const { id } = await a.openRequest(question(session));
          const waiting = b.awaitAnswer(id);
          await a.respond({ id, action: 'decline', by: 'cli' });
          const answer = await withTimeout(waiting, 'awaitAnswer on the other handle');
          strictEqual(answer.action, 'decline');
        }),
    },
    {
      name: 'answers cancel by expiry exactly once when two handles reach the deadline together',
      run: () =>
        pair(async (a, b, session, clock) => {
          const { id, trace } = await a.openRequest({ ...question(session), ttlMs: 1_000 });
          const waits = Promise.all([a.awaitAnswer(id), b.awaitAnswer(id)] as const);
          clock!.advance(1_000);
          const [one, two] = await withTimeout(waits, 'expiry');
          deepStrictEqual(one, two);
          strictEqual(one.action, 'cancel');
          strictEqual(one.by, 'expiry');
          const expired = (await a.audit({ trace })).filter((e) => e.kind === 'elicit.expired');
          strictEqual(expired.length, 1, 'one elicit.expired in the log');
          strictEqual(await codeOf(b.respond({ id, action: 'accept', content: { n: 1 }, by: 'cli' })), 'ELICITATION_EXPIRED');
        }, true),
    },
    {
      name: 'lists a question opened on one handle as pending on the other, and drops it once answered',
      run: () =>
        pair(async (a, b, session) => {
          const one = await a.openRequest(question(session));
          const two = await a.openRequest(question(session, { tool: 'other' }));
          deepStrictEqual((await b.pending()).map((p) => p.id).sort(), [one.id, two.id].sort());
          ok((await b.pending()).every((p) => p.timeLeftMs > 0 && p.state === 'pending'));
          await b.respond({ id: one.id, action: 'accept', content: { n: 3 }, by: 'cli' });
          deepStrictEqual(
            (await a.pending()).map((p) => p.id),
            [two.id],
          );
          deepStrictEqual(
            (await a.pending({ state: 'answered' })).map((p) => p.id),
            [one.id],
          );
        }),
    },
    {
      name: 'refuses an invalid answer with its issues and keeps the question pending for every handle',
      run: () =>
        pair(async (a, b, session) => {
          const { id } = await a.openRequest(question(session));
          strictEqual(await codeOf(b.respond({ id, action: 'accept', content: { n: -1 }, by: 'cli' })), 'ANSWER_INVALID');
          strictEqual((await a.get(id))?.state, 'pending');
          strictEqual((await b.respond({ id, action: 'accept', content: { n: 2 }, by: 'cli' })).action, 'accept');
        }),
    },
  ];
}
