/**
 * Compliance cases (part of `mcpx/testing`): what the store keeps: keyv's own row format, the audit log in write
 * order, the first of two questions opened with one id.
 */
import { deepStrictEqual, strictEqual } from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { newElicitationId } from '../ids.js';
import type { CaseKit, ComplianceCase } from './kit.js';

/** Rows, the audit log and first-write-wins, read back from the store. */
export function keptCases({ pair, question }: CaseKit): ComplianceCase[] {
  return [
    {
      name: "keeps questions and answers in keyv's own row format",
      run: () =>
        pair(async (a, _b, session) => {
          const { id } = await a.openRequest(question(session));
          await a.respond({ id, action: 'accept', content: { n: 7 }, by: 'script' });
          const keyv = a.store.keyv;
          strictEqual(((await keyv.get(`q:${id}`)) as { id?: string } | undefined)?.id, id);
          deepStrictEqual(((await keyv.get(`a:${id}`)) as { content?: unknown } | undefined)?.content, { n: 7 });
        }),
    },
    {
      name: 'keeps the audit log in the store, readable from another handle by session and by call',
      run: () =>
        pair(async (a, b, session) => {
          const { id, trace } = await a.openRequest(question(session));
          await b.respond({ id, action: 'cancel', by: 'http' });
          await b.recordResumed({ elicit: id, trace: `cal-${randomBytes(8).toString('hex')}`, parent: trace });
          deepStrictEqual(
            (await a.audit({ trace })).map((e) => e.kind),
            ['elicit.open', 'elicit.answered', 'elicit.resumed'],
          );
          strictEqual((await b.audit({ session })).length, 3);
        }),
    },
    {
      name: 'keeps the audit log in write order when every event shares one millisecond',
      run: () =>
        pair(async (a, b, session) => {
          // The manual clock never moves: every event carries the same `at`, so only a sequence can order them.
          const { id, trace } = await a.openRequest(question(session));
          await b.respond({ id, action: 'accept', content: { n: 1 }, by: 'http' });
          await b.recordResumed({ elicit: id, trace: `cal-${randomBytes(8).toString('hex')}`, parent: trace });
          await a.recordEvent({ kind: 'policy.fired', elicit: id, trace, session, rule: { index: 0, rule: 'same-ms' } });
          const second = await b.openRequest(question(session, { trace }));
          await a.abandon(second.id, 'the call is gone');
          const events = await b.audit({ trace });
          strictEqual(new Set(events.map((e) => e.at)).size, 1);
          deepStrictEqual(
            events.map((e) => e.kind),
            ['elicit.open', 'elicit.answered', 'elicit.resumed', 'policy.fired', 'elicit.open', 'elicit.abandoned'],
          );
        }, true),
    },
    {
      name: 'keeps the first question when the same id is opened on two handles',
      run: () =>
        pair(async (a, b, session) => {
          const id = newElicitationId();
          const [first, second] = await Promise.all([
            a.openRequest(question(session, { id, message: 'one' })),
            b.openRequest(question(session, { id, message: 'two' })),
          ]);
          strictEqual(first.message, second.message);
          strictEqual((await a.audit({ elicit: id })).filter((e) => e.kind === 'elicit.open').length, 1);
        }),
    },
  ];
}
