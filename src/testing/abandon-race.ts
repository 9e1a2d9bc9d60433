/**
 * A compliance case (part of `mcpx/testing`): an abandon and a respond racing on two handles, held at the store's
 * own atomic steps so both pass their reads first; exactly one wins and every handle agrees.
 */
import { deepStrictEqual, strictEqual } from 'node:assert/strict';
import type { BrokerStore } from '../broker/index.js';
import type { CaseKit, ComplianceCase } from './kit.js';

export function abandonRespondRaceCase({ pair, question, codeOf }: CaseKit): ComplianceCase {
  return {
    name: 'lets exactly one of an abandon and a respond racing on two handles win, and every handle agrees',
    run: () => {
      // Each round holds the abandon's write and the respond's claim until both passed their reads (each saw an
      // open question), then lets them go: together in one tick (the store decides), or one after the other
      // (the later one must be refused by the store's own atomic step, though its read said open).
      type Step = 'abandon' | 'respond';
      const race = {
        order: ['abandon', 'respond'] as Step[],
        together: true,
        ready: new Map<Step, () => void>(),
        finished: new Map<Step, () => void>(),
      };
      const arrive = (step: Step): Promise<void> =>
        new Promise((resolve) => {
          race.ready.set(step, resolve);
          if (race.ready.size < 2) return;
          const [first, second] = race.order as [Step, Step];
          race.ready.get(first)!();
          if (race.together) race.ready.get(second)!();
          else race.finished.set(first, race.ready.get(second)!);
          race.ready.clear();
        });
      const through = async <T>(step: Step, call: () => Promise<T>): Promise<T> => {
        await arrive(step);
        try {
          return await call();
        } finally {
          race.finished.get(step)?.();
          race.finished.delete(step);
        }
      };
      const gated = (store: BrokerStore, handle: 'a' | 'b'): BrokerStore =>
        new Proxy(store, {
          get(target, property) {
            if (handle === 'a' && property === 'updateQuestion')
              return (...args: Parameters<BrokerStore['updateQuestion']>) =>
                through('abandon', () => target.updateQuestion(...args));
            if (handle === 'b' && property === 'claimAnswer') {
              return (...args: Parameters<BrokerStore['claimAnswer']>) =>
                args[3]?.open ? through('respond', () => target.claimAnswer(...args)) : target.claimAnswer(...args);
            }
            const value = Reflect.get(target, property) as unknown;
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
      return pair(
        async (a, b, session) => {
          const outcomes = new Set<string>();
          for (let round = 0; round < 24; round++) {
            race.order = round % 2 ? ['abandon', 'respond'] : ['respond', 'abandon'];
            race.together = round % 3 !== 0;
            // b opened it: b's respond is one claim; a opened it: b reads it first.
            const { id } = await (round % 4 < 2 ? a : b).openRequest(question(session));
            const [abandoned, responded] = await Promise.all([
              codeOf(a.abandon(id, 'the call is gone')),
              codeOf(b.respond({ id, action: 'accept', content: { n: round }, by: 'api' })),
            ]);
            const events = (await b.audit({ elicit: id }))
              .filter((e) => e.kind === 'elicit.answered' || e.kind === 'elicit.abandoned')
              .map((e) => e.kind);
            if (responded === 'OK') {
              strictEqual(
                abandoned,
                'ELICITATION_ALREADY_ANSWERED',
                `round ${round}: the respond won, the abandon must be refused`,
              );
              strictEqual((await a.get(id))?.state, 'answered');
              deepStrictEqual(events, ['elicit.answered']);
              outcomes.add('answered');
            } else {
              strictEqual(abandoned, 'OK', `round ${round}: neither won (respond ${responded})`);
              strictEqual(responded, 'ELICITATION_ABANDONED', `round ${round}: the abandon won, the respond must be refused`);
              strictEqual((await b.get(id))?.state, 'abandoned');
              strictEqual(await a.lookup(id), undefined);
              deepStrictEqual(events, ['elicit.abandoned']);
              outcomes.add('abandoned');
            }
          }
          deepStrictEqual([...outcomes].sort(), ['abandoned', 'answered'], 'both outcomes over 24 rounds');
        },
        false,
        gated,
      );
    },
  };
}
