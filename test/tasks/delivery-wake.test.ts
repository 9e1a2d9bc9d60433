/**
 * An answerer of a held legacy question learns that the holder took its answer from the store's wake, not by
 * polling: while the holder (alive, its lease held) has not taken the offer yet, the answerer sends the store
 * nothing (counted at the drivers, test/helpers/store-trips.ts); once the holder takes it, the answerer hears it.
 * The check for a dead holder is set far off (a long lease), so only the wake can end the wait. Every broker is its
 * own handle on one real store, as processes are.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createBroker, type StoreBroker } from '../../src/broker/broker.js';
import { openPostgresStore } from '../../src/broker/stores/postgres/postgres.js';
import { openRedisStore } from '../../src/broker/stores/redis/redis.js';
import { openSqliteStore } from '../../src/broker/stores/sqlite/sqlite.js';
import type { BrokerStore } from '../../src/broker/types.js';
import { heldResponder, openReceipts, takeOffers } from '../../src/tasks/delivery.js';
import { readOffer } from '../../src/broker/offers.js';
import { until } from '../helpers/daemon-fleet.js';
import { openHeldQuestion } from '../helpers/held-question.js';
import { useCountedServers } from '../helpers/counted-servers.js';

/** Long enough that the answerer's check for a dead holder (a fifteenth of it) never comes during a test. */
const LEASE_MS = 600_000;

const servers = useCountedServers('mcpx-delivery-wake-');
const { counter } = servers;

// The Redis store's 250 ms safety re-read is set far off: it is the store's housekeeping, not the answerer's.
const stores: Array<[string, string, () => Promise<BrokerStore>]> = [
  ['SQLite', 'sqlite statement', () => openSqliteStore(join(servers.dir, 'wake.sqlite'))],
  ['Redis', 'redis round trip', () => openRedisStore(servers.redis.url, { fallbackPollMs: 60_000 })],
  ['Postgres', 'postgres round trip', () => openPostgresStore(servers.postgres.url)],
];

describe.each(stores)('the answerer of a held legacy question on %s', (_name, trip, openStore) => {
  const opened: BrokerStore[] = [];
  const open = async (): Promise<StoreBroker> => {
    const store = await openStore();
    opened.push(store);
    return createBroker({ store, session: 'wake' });
  };
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
  });

  it('waits on the store for the holder to take its answer, sending nothing meanwhile', async () => {
    const holder = await open();
    const { id, task } = await openHeldQuestion(holder, { session: 'wake', leaseMs: LEASE_MS });

    const answerer = await open();
    const respond = heldResponder(answerer, LEASE_MS);
    counter.counts.clear();
    counter.phase = 'offer';
    const answering = respond({ id, action: 'accept', content: { repo: 'me/one' }, by: 'http', pid: 424_242 });
    // The offer, the first read and the watch's own setup: done once the answerer sent nothing for 300 ms (a loaded
    // machine may take a while); then it only waits. The old code never went quiet (a round every 5-100 ms).
    const offered = (): number => counter.counts.get(`offer ${trip}`) ?? 0;
    for (let last = -1, i = 0; i < 20 && offered() !== last; i++) {
      last = offered();
      await sleep(300);
    }
    counter.phase = 'wait';
    await sleep(500);
    counter.phase = undefined;
    const waited = counter.counts.get(`wait ${trip}`) ?? 0;

    const stop = new AbortController();
    const taking = takeOffers(openReceipts(holder.store), task, id, stop.signal);
    try {
      const { answer, delivery } = await answering;
      expect(delivery).toBe('delivered');
      expect(answer.content).toEqual({ repo: 'me/one' });
    } finally {
      stop.abort();
      await taking;
    }
    expect(counter.counts.get(`offer ${trip}`)).toBeGreaterThan(0);
    expect(waited).toBe(0);
  }, 30_000);

  it('is refused with ELICITATION_ABANDONED as soon as the live holder abandons the question, woken by the store', async () => {
    const holder = await open();
    const { id } = await openHeldQuestion(holder, { session: 'wake', leaseMs: LEASE_MS });
    const answerer = await open();
    const answering = heldResponder(answerer, LEASE_MS)({ id, action: 'accept', content: { repo: 'me/two' }, by: 'cli' });
    answering.catch(() => undefined);
    // The offer stands (the holder has not taken it) when the holder, alive and holding its lease, lets the question go.
    await until('the offer is written', async () => ((await readOffer(holder.store, id)) ? true : undefined));
    await holder.abandon(id, 'the call finished before this question was answered');
    // The check for a dead holder comes only every LEASE_MS / 15 (40 s, past this test's limit): only a wake ends it.
    await expect(answering).rejects.toMatchObject({ code: 'ELICITATION_ABANDONED' });
    expect((await answerer.get(id))?.state).toBe('abandoned');
    expect(await answerer.lookup(id)).toBeUndefined();
  }, 20_000);
});
