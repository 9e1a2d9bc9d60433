/** Retention (retainMs): the memory store and the Redis audit list drop what is past its keep-until, not just hide it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroker, openMemoryStore, openRedisStore } from '../../src/broker/index.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

const ask = {
  trace: 'cal-00000000000000c1',
  server: 's',
  tool: 't',
  mode: 'form' as const,
  message: 'ok?',
  era: 'legacy' as const,
  ttlMs: 20,
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Long enough that a loaded machine cannot pass it between the writes and the first checks.
const RETAIN_MS = 1_000;
const WRITE_LAG_MS = 100;
/**
 * Waits until every record written up to `lastWrite` is past its keep-until. Each record keeps for retainMs from
 * its own write (a row for retainMs past its deadline, at least 1 ms ahead), so the wait counts from the last
 * write, not from the deadline: on a loaded machine the expiry timer and the resumed event land well after it.
 */
async function pastRetention(lastWrite: number): Promise<void> {
  // The open event keeps as long as its row (deadline + retainMs), its ttl read from the clock before the write: a
  // write that lags that read (a loaded machine, Node 22 in CI) keeps it a few ms past lastWrite + retainMs.
  const until = lastWrite + RETAIN_MS + WRITE_LAG_MS;
  // setTimeout counts from the event loop's cached time, which lags Date.now() when the tick ran long or the
  // process was descheduled, so one sleep can end early: sleep again until the clock itself says so.
  while (Date.now() <= until) await sleep(until + 1 - Date.now());
}

describe('retention', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => redis?.stop());

  it('empties the memory store of questions, answers and events once retainMs has passed', async () => {
    const store = openMemoryStore();
    const broker = createBroker({ store, session: 's1', retainMs: RETAIN_MS });
    const { id } = await broker.openRequest(ask);
    // The deadline answers it (cancel by expiry): no respond racing a 20 ms deadline on a loaded machine.
    expect(await broker.awaitAnswer(id)).toMatchObject({ action: 'cancel', by: 'expiry' });
    await broker.recordResumed({ elicit: id, trace: 'cal-00000000000000c2' });
    const lastWrite = Date.now();
    expect(await broker.audit()).toHaveLength(3);
    await pastRetention(lastWrite);
    expect(await broker.audit()).toEqual([]);
    expect([...(store.keyv.store as Map<string, unknown>).keys()]).toEqual([]);
    await broker.close();
  });

  it('trims the Redis audit list itself once retainMs has passed', async () => {
    const store = await openRedisStore(redis.url, { namespace: 'retention' });
    const broker = createBroker({ store, session: 's1', retainMs: RETAIN_MS });
    const { id } = await broker.openRequest(ask);
    // The deadline answers it (cancel by expiry): no respond racing a 20 ms deadline on a loaded machine.
    expect(await broker.awaitAnswer(id)).toMatchObject({ action: 'cancel', by: 'expiry' });
    await broker.recordResumed({ elicit: id, trace: 'cal-00000000000000c2' });
    const lastWrite = Date.now();
    const client = await (
      store.keyv.store as { getClient(): Promise<{ sendCommand(args: string[]): Promise<unknown> }> }
    ).getClient();
    const logKeys = (await client.sendCommand(['KEYS', '*log*'])) as string[];
    expect(logKeys).toHaveLength(1);
    expect(await client.sendCommand(['LLEN', logKeys[0]!])).toBe(3);
    await pastRetention(lastWrite);
    expect(await broker.audit()).toEqual([]);
    expect(await client.sendCommand(['LLEN', logKeys[0]!])).toBe(0);
    await broker.close();
    await store.close();
  });
});
