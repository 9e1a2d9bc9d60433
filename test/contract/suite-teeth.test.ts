import { describe, expect, it } from 'vitest';
import { openMemoryStore, type BrokerStore } from '../../src/broker/index.js';
import { runStoreCompliance, storeComplianceCases } from '../../src/testing/index.js';

/** A store that claims with get-then-set, the way plain keyv would: two responders can both read "absent". */
function naiveStore(): BrokerStore {
  const inner = openMemoryStore();
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'claimAnswer') {
        return async (answer: Parameters<BrokerStore['claimAnswer']>[0], ttlMs: number) => {
          if (await target.getAnswer(answer.id)) return false;
          await new Promise((resolve) => setImmediate(resolve));
          await target.keyv.set(`a:${answer.id}`, answer, ttlMs);
          return true;
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A store whose abandon checks for an answer and then writes, and whose respond claim ignores an abandon. */
function checkThenAbandonStore(): BrokerStore {
  const inner = openMemoryStore();
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'claimAnswer') {
        return (
          answer: Parameters<BrokerStore['claimAnswer']>[0],
          ttlMs: number,
          event: Parameters<BrokerStore['claimAnswer']>[2],
        ) => target.claimAnswer(answer, ttlMs, event);
      }
      if (property === 'updateQuestion') {
        return async (request: Parameters<BrokerStore['updateQuestion']>[0], ttlMs: number) => {
          if (await target.getAnswer(request.id)) return false;
          await new Promise((resolve) => setImmediate(resolve));
          await target.keyv.set(`q:${request.id}`, request, ttlMs);
          return true;
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A store whose onClaimed is missing (undefined), or subscribes and never calls back. */
function withoutClaimed(kind: 'missing' | 'silent'): BrokerStore {
  const inner = openMemoryStore();
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'onClaimed') return kind === 'missing' ? undefined : () => () => undefined;
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

// In memory, what a compliant store delivers comes within a tick: a broken store's case fails after this, not 5 s.
const WAIT_MS = 1_500;

const CLAIMED_CASES = [
  'tells onClaimed listeners of an answer a broker claims through the store object, once, until unsubscribed',
  'tells onClaimed listeners of an answer claimed straight through the store object (a holder taking an offer)',
];

describe('store compliance suite', () => {
  it('fails a store without onClaimed', async () => {
    const store = withoutClaimed('missing');
    const results = await runStoreCompliance({ open: async () => store, waitMs: WAIT_MS });
    const failed = results.filter((r) => !r.ok).map((r) => r.name);
    expect(failed).toEqual(expect.arrayContaining(CLAIMED_CASES));
  });

  it('fails a store whose onClaimed never calls back, in its onClaimed cases alone', async () => {
    const store = withoutClaimed('silent');
    const results = await runStoreCompliance({ open: async () => store, waitMs: WAIT_MS });
    const failed = results.filter((r) => !r.ok).map((r) => r.name);
    expect(failed.sort()).toEqual([...CLAIMED_CASES].sort());
  }, 30_000);

  it('fails a store where an abandon and a respond can both win', async () => {
    const store = checkThenAbandonStore();
    const results = await runStoreCompliance({ open: async () => store, waitMs: WAIT_MS });
    const failed = results.filter((r) => !r.ok).map((r) => r.name);
    expect(failed).toContain('lets exactly one of an abandon and a respond racing on two handles win, and every handle agrees');
  });

  it('fails a store whose answer claim is not atomic', async () => {
    const store = naiveStore();
    const results = await runStoreCompliance({ open: async () => store, waitMs: WAIT_MS });
    const failed = results.filter((r) => !r.ok).map((r) => r.name);
    expect(failed).toContain('lets exactly one of 50 concurrent responders on two handles win');
  });

  it('refuses a waitMs that is not a positive number, saying so', () => {
    for (const waitMs of [0, -1, Number.NaN]) {
      expect(() => storeComplianceCases({ open: async () => openMemoryStore(), waitMs })).toThrow(
        /waitMs must be a positive number of milliseconds/,
      );
    }
  });

  it('passes the memory store in full', async () => {
    const store = openMemoryStore();
    const results = await runStoreCompliance({ open: async () => store, waitMs: WAIT_MS });
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(8);
  });
});
