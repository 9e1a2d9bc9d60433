/**
 * Compliance cases (part of `mcpx/testing`): of writes racing on two handles, the store lets exactly one win, and a
 * row put with a wake reaches the watchers on the other handle.
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import type { CaseKit, ComplianceCase } from './kit.js';

/** Concurrent responds and put-if-absent claims; a wake across handles. */
export function oneWinnerCases({ pair, question, codeOf, withTimeout }: CaseKit): ComplianceCase[] {
  return [
    {
      name: 'lets exactly one of 50 concurrent responders on two handles win',
      run: () =>
        pair(async (a, b, session) => {
          const { id } = await a.openRequest(question(session));
          const codes = await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              codeOf((i % 2 ? a : b).respond({ id, action: 'accept', content: { n: i }, by: 'api' })),
            ),
          );
          strictEqual(codes.filter((c) => c === 'OK').length, 1, `winners: ${codes.join(',')}`);
          strictEqual(codes.filter((c) => c === 'ELICITATION_ALREADY_ANSWERED').length, 49);
          deepStrictEqual(await a.lookup(id), await b.lookup(id));
        }),
    },
    {
      name: 'lets exactly one of 50 concurrent put-if-absent claims of one host row on two handles win',
      run: () =>
        pair(async (a, b, session) => {
          const key = `claim:${session}`;
          const wins = await Promise.all(
            Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).store.putIfAbsent(key, { by: i }, 60_000)),
          );
          strictEqual(wins.filter(Boolean).length, 1, `winners: ${wins.map(Number).join('')}`);
          const winner = wins.indexOf(true);
          deepStrictEqual(await a.store.keyv.get(key), { by: winner });
          deepStrictEqual(await b.store.keyv.get(key), { by: winner });
        }),
    },
    {
      name: 'wakes the watchers of a row on another handle when it is put with a wake (how a held call hears an offer)',
      run: () =>
        pair(async (a, b, session) => {
          const key = `o:${session}`;
          const woken = new Promise<void>((resolve) => {
            const off = b.store.watchRow(key, () => {
              off();
              resolve();
            });
          });
          ok(await a.store.putIfAbsent(key, { n: 1 }, 60_000, { wake: true }));
          strictEqual(await a.store.putIfAbsent(key, { n: 2 }, 60_000, { wake: true }), false);
          await withTimeout(woken, 'the watcher of the row on the other handle', 2);
          deepStrictEqual(await b.store.keyv.get(key), { n: 1 });
        }),
    },
  ];
}
