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

  it.each(stores)('%s: one trip to open, one to respond, none to await', async (_kind, trip, open) => {
    const store = await open();
    const broker = createBroker({ store, allowAnySession: true });
    const trimmedAt = (): unknown => (store as unknown as { trimmedAt?: number }).trimmedAt;
    const perCycle: Array<{ open: number; respond: number; await: number; trimmed: boolean }> = [];
    try {
      for (let i = 0; i < CYCLES + 2; i++) {
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
        // The first two warm up (connections, prepared statements, the subscription).
        if (i >= 2) perCycle.push({ open: n('open'), respond: n('respond'), await: n('await'), trimmed });
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
