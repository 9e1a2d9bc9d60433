/**
 * The Redis store runs its Lua scripts by SHA1 (EVALSHA): a Redis that forgot them (restarted, SCRIPT FLUSH) gets
 * the text again, and open, respond and wake keep working. An answer is published only when a subscriber other
 * than the answering store's own listens. On a real redis-server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroker, openRedisStore } from '../../src/broker/index.js';
import { rawKey } from '../../src/broker/stores/rows.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { tripCounter } from '../helpers/store-trips.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const ask = {
  trace: 'cal-0000000000000001',
  server: 'fx',
  tool: 'ask',
  mode: 'form' as const,
  message: 'Proceed?',
  era: 'legacy' as const,
  requestedSchema: { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } },
};

describe('the Redis store scripts', () => {
  it('keeps answering once after Redis flushed its script cache', async () => {
    const store = await openRedisStore(redis.url, { namespace: 'scripts' });
    const broker = createBroker({ store, allowAnySession: true });
    const client = await (
      store.keyv.store as { getClient(): Promise<{ sendCommand(args: string[]): Promise<unknown> }> }
    ).getClient();
    try {
      for (let round = 0; round < 2; round++) {
        await client.sendCommand(['SCRIPT', 'FLUSH']);
        const { id } = await broker.openRequest(ask);
        const woke = broker.awaitAnswer(id);
        await broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
        expect((await woke).content).toEqual({ ok: true });
        await expect(broker.respond({ id, action: 'decline', by: 'api' })).rejects.toMatchObject({
          code: 'ELICITATION_ALREADY_ANSWERED',
        });
      }
    } finally {
      await broker.close();
      await store.close();
    }
  });

  it('reads the question row only to tell abandoned from not: the word in a message does not abandon it', async () => {
    const store = await openRedisStore(redis.url, { namespace: 'scripts-abandon' });
    const asker = createBroker({ store, allowAnySession: true });
    const other = createBroker({ store, allowAnySession: true });
    try {
      const worded = await asker.openRequest({ ...ask, message: 'Was the "state":"abandoned" run yours?' });
      await expect(asker.respond({ id: worded.id, action: 'accept', content: { ok: true }, by: 'api' })).resolves.toMatchObject({
        action: 'accept',
      });
      // Known to the asker (one claim, no read): the script itself must see the abandon another broker wrote.
      const gone = await asker.openRequest(ask);
      await other.abandon(gone.id, 'the call ended');
      await expect(asker.respond({ id: gone.id, action: 'accept', content: { ok: true }, by: 'api' })).rejects.toMatchObject({
        code: 'ELICITATION_ABANDONED',
      });
    } finally {
      await asker.close();
      await other.close();
      await store.close();
    }
  });

  it('publishes an answer only when a subscriber other than its own listens', async () => {
    const counter = tripCounter();
    counter.label = (socket) => (socket.remotePort === redis.port ? 'redis' : undefined);
    // The fallback polls are off: only a published answer can wake the other handle's waiter.
    const asker = await openRedisStore(redis.url, { namespace: 'scripts-publish', fallbackPollMs: 3_600_000 });
    const other = await openRedisStore(redis.url, { namespace: 'scripts-publish', fallbackPollMs: 3_600_000 });
    const broker = createBroker({ store: asker, allowAnySession: true });
    const elsewhere = createBroker({ store: other, allowAnySession: true });
    const client = await (
      asker.keyv.store as { getClient(): Promise<{ sendCommand(args: string[]): Promise<unknown> }> }
    ).getClient();
    const subscribers = async (): Promise<number> =>
      ((await client.sendCommand(['PUBSUB', 'NUMSUB', rawKey(asker.keyv, 'answered')])) as [string, number])[1];
    try {
      const claimedAlone: string[] = [];
      for (let i = 0; i < 6; i++) {
        if (i === 2) {
          // Its own subscription must have landed (its SUBSCRIBE answered): until then the claim publishes, as it
          // must, since Redis may already count that subscriber before the store can tell it is its own.
          const subscribing = (asker as unknown as { subscribing?: Promise<void> }).subscribing;
          expect(subscribing).toBeDefined();
          await subscribing;
          counter.phase = 'alone';
        }
        const { id } = await broker.openRequest(ask);
        if (counter.phase) claimedAlone.push(id);
        const woke = broker.awaitAnswer(id);
        await broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
        expect((await woke).action).toBe('accept');
      }
      // Alone on the channel (its own subscriber only): no answer claimed meanwhile came back on any socket. (One
      // published before, while its subscription landed, may arrive late, under load: it names an earlier question.)
      expect(await subscribers()).toBe(1);
      counter.phase = undefined;
      expect(counter.pushes.filter((data) => claimedAlone.some((id) => data.includes(id)))).toEqual([]);
      expect(claimedAlone).toHaveLength(4);
      const { id } = await broker.openRequest(ask);
      const woke = elsewhere.awaitAnswer(id);
      while ((await subscribers()) < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      await broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
      expect((await woke).action).toBe('accept');
    } finally {
      counter.phase = undefined;
      await broker.close();
      await elsewhere.close();
      await asker.close();
      await other.close();
    }
  });
});
