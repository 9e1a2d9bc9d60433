/**
 * What one open → await → respond cycle costs each store, counted at the drivers on real servers: one round trip
 * (or statement) to open, one to respond, none to await an answer this process gave.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createBroker,
  openPostgresStore,
  openRedisStore,
  openSqliteStore,
  type BrokerStore,
  type OpenRequestInput,
} from '../../src/broker/index.js';
import { useCountedServers } from '../helpers/counted-servers.js';

const ask: OpenRequestInput = {
  trace: 'cal-0000000000000c01',
  server: 's',
  tool: 't',
  mode: 'form',
  message: 'Proceed?',
  era: 'legacy',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
};
const CYCLES = 20;

describe('broker store round trips', () => {
  const servers = useCountedServers('mcpx-trips-');
  const { counter } = servers;

  // The fallback polls are set far off: they are housekeeping on a timer, not part of any cycle.
  const stores: Array<[string, string, () => Promise<BrokerStore>]> = [
    ['sqlite', 'sqlite statement', () => openSqliteStore(join(servers.dir, 'trips.sqlite'), { pollIntervalMs: 60_000 })],
    ['redis', 'redis round trip', () => openRedisStore(servers.redis.url, { fallbackPollMs: 60_000 })],
    ['postgres', 'postgres round trip', () => openPostgresStore(servers.postgres.url)],
  ];

  it.each(stores)('%s: one trip to open, one to respond, none to await', async (kind, trip, open) => {
    const store = await open();
    const broker = createBroker({ store, allowAnySession: true });
    const trimmedAt = (): unknown => (store as unknown as { trimmedAt?: number }).trimmedAt;
    // The store's own listening connection (Postgres LISTEN, Redis SUBSCRIBE) comes up in the background after the
    // first wait, in its own time (a loaded machine took ~5 cycles): its setup would count in whatever phase it lands.
    const listening = (): boolean => {
      const internals = store as unknown as { answers?: { live?: unknown }; ownSubscription?: number };
      return kind === 'postgres'
        ? internals.answers?.live !== undefined
        : kind === 'redis'
          ? internals.ownSubscription === 1
          : true;
    };
    const perCycle: Array<{ open: number; respond: number; await: number; trimmed: boolean }> = [];
    let warm = 0;
    try {
      while (perCycle.length < CYCLES) {
        expect(warm, 'cycles before the store listened').toBeLessThan(1_000);
        const counted = warm >= 2 && listening();
        if (!counted) warm++;
        counter.counts.clear();
        counter.phase = 'open';
        const { id } = await broker.openRequest(ask);
        counter.phase = 'await';
        const woke = broker.awaitAnswer(id);
        counter.phase = 'respond';
        const before = trimmedAt();
        await broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
        const trimmed = trimmedAt() !== before;
        counter.phase = 'await';
        expect((await woke).action).toBe('accept');
        counter.phase = undefined;
        const n = (phase: string): number => counter.counts.get(`${phase} ${trip}`) ?? 0;
        // At least two warm up (connections, prepared statements), and every one until the store listens.
        if (counted) perCycle.push({ open: n('open'), respond: n('respond'), await: n('await'), trimmed });
      }
    } finally {
      counter.phase = undefined;
      await broker.close();
      await store.close();
    }
    // Redis trims the audit list at most once a second, after a claim: that respond has one trip more.
    expect(perCycle).toEqual(perCycle.map(({ trimmed }) => ({ open: 1, respond: trimmed ? 2 : 1, await: 0, trimmed })));
  });
});
