/**
 * `mcpx/testing`: the store compliance suite, for hosts that bring their own keyv store.
 * Framework-free: each case is a name and an async function that throws on failure, so it runs under vitest,
 * node:test or a plain script. `open()` must return a NEW handle (connection) to the SAME backing store on
 * every call, so cross-handle (cross-process) behaviour is exercised; a Map store returns the same keyv.
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Keyv } from 'keyv';
import { createBroker, type StoreBroker } from '../broker/index.js';
import { createManualClock } from '../broker/index.js';
import { toBrokerStore } from '../broker/index.js';
import type { BrokerStore, OpenRequestInput } from '../broker/index.js';
import { isMcpxError } from '../errors.js';
import { newElicitationId } from '../ids.js';
import { claimedCases } from './claimed.js';

export { createManualClock } from '../broker/index.js';
export type { ManualClock } from '../broker/index.js';

export interface StoreFactory {
  /** A new handle to the shared backing store. The suite closes the handles it opens. */
  open(): Promise<BrokerStore | Keyv>;
}

export interface ComplianceCase {
  name: string;
  run(): Promise<void>;
}

export interface ComplianceResult {
  name: string;
  ok: boolean;
  error?: unknown;
}

const question = (session: string, over: Partial<OpenRequestInput> = {}): OpenRequestInput => ({
  trace: `cal-${randomBytes(8).toString('hex')}`,
  server: 'compliance',
  tool: 'ask',
  mode: 'form',
  message: 'Pick a number',
  era: 'legacy',
  session,
  requestedSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
  ...over,
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'OK';
  } catch (error) {
    if (isMcpxError(error)) return error.code;
    throw error;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
    }),
  ]);
}

/** The cases every broker store must pass. */
export function storeComplianceCases(factory: StoreFactory): ComplianceCase[] {
  /** Two brokers over two handles of the store, for one case; always closed afterwards. */
  const pair = async <T>(
    body: (
      a: StoreBroker,
      b: StoreBroker,
      session: string,
      clock: ReturnType<typeof createManualClock> | undefined,
    ) => Promise<T>,
    manual = false,
    wrap: (store: BrokerStore, handle: 'a' | 'b') => BrokerStore = (store) => store,
  ): Promise<T> => {
    const session = `compliance-${randomBytes(6).toString('hex')}`;
    const clock = manual ? createManualClock(Date.now()) : undefined;
    const storeA = toBrokerStore(await factory.open());
    const storeB = toBrokerStore(await factory.open());
    const a = createBroker({ store: wrap(storeA, 'a'), session, ...(clock ? { clock } : {}) });
    const b = createBroker({ store: wrap(storeB, 'b'), session, ...(clock ? { clock } : {}) });
    try {
      return await body(a, b, session, clock);
    } finally {
      await a.close();
      await b.close();
      await storeA.close();
      if (storeB !== storeA) await storeB.close();
    }
  };

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
          await withTimeout(woken, 10_000, 'the watcher of the row on the other handle');
          deepStrictEqual(await b.store.keyv.get(key), { n: 1 });
        }),
    },
    ...claimedCases({ pair: (body) => pair(body), question, withTimeout }),
    {
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
    },
    {
      name: 'wakes a waiter on another handle when the question is answered',
      run: () =>
        pair(async (a, b, session) => {
          const { id } = await a.openRequest(question(session));
          const waiting = b.awaitAnswer(id);
          await a.respond({ id, action: 'decline', by: 'cli' });
          const answer = await withTimeout(waiting, 5_000, 'awaitAnswer on the other handle');
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
          const [one, two] = await withTimeout(waits, 5_000, 'expiry');
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

/** Runs every case and returns the results (a host can print them or fail its own test on them). */
export async function runStoreCompliance(factory: StoreFactory): Promise<ComplianceResult[]> {
  const results: ComplianceResult[] = [];
  for (const testCase of storeComplianceCases(factory)) {
    try {
      await testCase.run();
      results.push({ name: testCase.name, ok: true });
    } catch (error) {
      results.push({ name: testCase.name, ok: false, error });
    }
  }
  return results;
}
