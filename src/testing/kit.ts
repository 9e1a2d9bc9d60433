/**
 * What every compliance case is built from: a pair of brokers over two handles of the host's store (so
 * cross-handle, cross-process behaviour is exercised), a question to open, and small assertions' helpers.
 */
import { randomBytes } from 'node:crypto';
import type { Keyv } from 'keyv';
import { createBroker, createManualClock, toBrokerStore } from '../broker/index.js';
import type { BrokerStore, OpenRequestInput, StoreBroker } from '../broker/index.js';
import { isMcpxError, McpxError } from '../errors.js';

export interface StoreFactory {
  /** A new handle to the shared backing store. The suite closes the handles it opens. */
  open(): Promise<BrokerStore | Keyv>;
  /** How long a case waits for what a store must deliver (a wake, an event, an answer) before failing; 5000 ms. */
  waitMs?: number;
}

export interface ComplianceCase {
  name: string;
  run(): Promise<void>;
}

/**
 * Two brokers over two handles of the store, for one case; always closed afterwards. `manual`: both on one manual
 * clock; `wrap`: each handle's store as the case wants it (gated, say).
 */
export type Pair = <T>(
  body: (a: StoreBroker, b: StoreBroker, session: string, clock: ReturnType<typeof createManualClock> | undefined) => Promise<T>,
  manual?: boolean,
  wrap?: (store: BrokerStore, handle: 'a' | 'b') => BrokerStore,
) => Promise<T>;

export interface CaseKit {
  pair: Pair;
  question(session: string, over?: Partial<OpenRequestInput>): OpenRequestInput;
  /** `OK`, or the McpxError code the promise rejects with. */
  codeOf(promise: Promise<unknown>): Promise<string>;
  /** Fails with `what` unless the promise settles within the factory's `waitMs` (times `factor`). */
  withTimeout<T>(promise: Promise<T>, what: string, factor?: number): Promise<T>;
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

export function caseKit(factory: StoreFactory): CaseKit {
  const pair: Pair = async (body, manual = false, wrap = (store) => store) => {
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
  const waitMs = factory.waitMs ?? 5_000;
  if (!(Number.isFinite(waitMs) && waitMs > 0))
    throw new McpxError(
      'CONFIG_INVALID',
      `waitMs must be a positive number of milliseconds, not ${String(factory.waitMs)}; leave it out for 5000`,
    );
  return { pair, question, codeOf, withTimeout: (promise, what, factor = 1) => withTimeout(promise, waitMs * factor, what) };
}
