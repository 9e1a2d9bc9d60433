/**
 * An answer claimed in this process past the broker (the holder of a legacy call taking an offered answer through
 * the store) reaches the broker's own subscribers, once, with nobody announcing it: the broker hears every claim
 * made through its store object. Real stores: memory, a SQLite file, redis-server, Postgres.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBroker } from '../../src/broker/broker.js';
import { readOffer, takeOffer } from '../../src/broker/offers.js';
import { openStoreUrl } from '../../src/broker/store-url.js';
import type { BrokerEvent, BrokerStore, OpenRequestInput } from '../../src/broker/types.js';
import { openMemoryStore } from '../../src/broker/index.js';
import { useStoreServers } from '../helpers/store-servers.js';

const servers = useStoreServers();
const sqliteUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'mcpx-claimed-')), 'shared.sqlite')}`;

const plain: OpenRequestInput = {
  trace: 'cal-00000000000000aa',
  server: 'legacy',
  tool: 'ask_form',
  era: 'legacy' as const,
  mode: 'form' as const,
  message: 'Which repository?',
  requestedSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
};
/** A held legacy call's question: its answer from another broker is an offer. */
const question: OpenRequestInput = { ...plain, task: 'tsk-00000000000000aa' };

for (const [name, open] of [
  ['memory', async () => openMemoryStore()],
  ['SQLite', () => openStoreUrl(sqliteUrl)],
  ['Redis', () => openStoreUrl(servers.redis.url)],
  ['Postgres', () => openStoreUrl(servers.postgres.url)],
] as const) {
  describe(`a broker on ${name}`, () => {
    it('tells its subscribers of an answer claimed past it through its store, once', async () => {
      const store: BrokerStore = await open();
      const answererStore = name === 'memory' ? store : await open();
      const broker = createBroker({ store, session: 'claimed' });
      const answerer = createBroker({ store: answererStore, session: 'claimed' });
      const events: BrokerEvent[] = [];
      broker.subscribe((event) => events.push(event));
      try {
        const offered = await broker.openRequest(question);
        const answered = answerer.respond({
          id: offered.id,
          action: 'accept',
          content: { repo: 'me/one' },
          by: 'cli',
          offer: true,
        });
        await answered;
        // The holder takes the offer through the store itself, as tasks/delivery.ts does: past the broker.
        expect(await takeOffer(store, (await readOffer(store, offered.id))!)).toBe(true);
        expect((await broker.awaitAnswer(offered.id)).content).toEqual({ repo: 'me/one' });
        // The broker's own answer is told once too, not twice.
        const own = await broker.openRequest(plain);
        await broker.respond({ id: own.id, action: 'decline', by: 'cli' });
        const answeredEvents = events.filter((e) => e.kind === 'elicit.answered').map((e) => [e.elicit, e.action]);
        expect(answeredEvents).toEqual([
          [offered.id, 'accept'],
          [own.id, 'decline'],
        ]);
      } finally {
        await broker.close();
        await answerer.close();
        await store.close();
        if (answererStore !== store) await answererStore.close();
      }
    });
  });
}
