/**
 * The Postgres claim NOTIFYs only when a connection other than its own process's listener listens
 * (src/broker/stores/postgres/presence.ts), and no answer goes unseen for it: another store's waiter is woken, and
 * a listener that arrives while a claim holds the presence lock waits for it, then re-reads. A spy connection that
 * LISTENs without being present sees every NOTIFY sent, in commit order; its own NOTIFYs mark where to stop reading.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroker } from '../../src/broker/broker.js';
import { openPostgresStore } from '../../src/broker/index.js';
import { presenceKey } from '../../src/broker/stores/postgres/presence.js';
import type { StoreBroker } from '../../src/broker/broker.js';
import type { BrokerStore, OpenRequestInput } from '../../src/broker/types.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});

const ask: OpenRequestInput = {
  trace: 'cal-00000000000000cc',
  server: 'presence',
  tool: 'ask',
  era: 'legacy',
  mode: 'form',
  message: 'Proceed?',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
};
const channel = 'keyv_mcpx_answered_mcpx';

/** Until the store's LISTEN connection listens (and is present). */
async function listening(store: BrokerStore): Promise<void> {
  const unwatch = store.watch('nothing', () => undefined);
  await (store as unknown as { answers: { listener: Promise<unknown> } }).answers.listener;
  unwatch();
}

async function cycle(broker: StoreBroker): Promise<string> {
  const { id } = await broker.openRequest(ask);
  const woke = broker.awaitAnswer(id);
  await broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
  expect((await woke).content).toEqual({ ok: true });
  return id;
}

describe('Postgres presence', () => {
  it('sends no NOTIFY for an answer when only its own process listens, and one when another store listens', async () => {
    const spy = new pg.Client({ connectionString: postgres.url });
    await spy.connect();
    const heard: string[] = [];
    spy.on('notification', (message) => heard.push(message.payload ?? ''));
    await spy.query(`LISTEN "${channel}"`);
    /** The payloads sent since the last mark (NOTIFYs arrive in commit order, the spy's own too). */
    let marks = 0;
    const sinceMark = async (): Promise<string[]> => {
      // Shaped as a row's wake, which the stores' listeners take as one (for a row nobody watches).
      const mark = JSON.stringify({ row: `mark-${++marks}` });
      await spy.query(`SELECT pg_notify('${channel}', $1)`, [mark]);
      while (!heard.includes(mark)) await new Promise((resolve) => setTimeout(resolve, 5));
      return heard.splice(0).filter((payload) => payload !== mark);
    };
    const store = await openPostgresStore(postgres.url);
    const broker = createBroker({ store, allowAnySession: true });
    const other = await openPostgresStore(postgres.url);
    try {
      await listening(store);
      await sinceMark();
      await cycle(broker);
      await cycle(broker);
      expect(await sinceMark()).toEqual([]);

      // Another store (another process, for Postgres: its own connections) listens: the answer is announced.
      await listening(other);
      const { id } = await broker.openRequest(ask);
      const elsewhere = createBroker({ store: other, allowAnySession: true }).awaitAnswer(id);
      await broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
      expect((await elsewhere).content).toEqual({ ok: true });
      expect((await sinceMark()).map((payload) => (JSON.parse(payload) as { id: string }).id)).toEqual([id]);
    } finally {
      await broker.close();
      await Promise.all([store.close(), other.close(), spy.end()]);
    }
  });

  it('a listener arriving while a claim holds the presence lock waits for it, then its waiters re-read', async () => {
    const answering = await openPostgresStore(postgres.url, { namespace: 'race' });
    const waiting = await openPostgresStore(postgres.url, { namespace: 'race' });
    const claim = new pg.Client({ connectionString: postgres.url });
    await claim.connect();
    try {
      // A claim that found nobody present holds the lock until it commits.
      await claim.query('BEGIN');
      const [took] = (
        await claim.query(`SELECT pg_try_advisory_xact_lock(${0x6d637078}, $1::int) AS took`, [
          presenceKey('keyv_mcpx_answered_race'),
        ])
      ).rows as Array<{ took: boolean }>;
      expect(took?.took).toBe(true);
      const answerer = createBroker({ store: answering, allowAnySession: true });
      const { id } = await answerer.openRequest(ask);
      const woken: unknown[] = [];
      const unwatch = waiting.watch(id, (answer) => woken.push(answer));
      // Its listener waits for the lock (a request not granted), before it listens.
      const blocked = async (): Promise<boolean> =>
        (
          (await claim.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).rows[0] as {
            n: number;
          }
        ).n > 0;
      while (!(await blocked())) await new Promise((resolve) => setTimeout(resolve, 5));
      // Meanwhile the answer lands (its NOTIFY, if any, reaches no LISTEN yet: the waiter's listener is held up).
      await answerer.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
      expect(woken).toEqual([]);
      await claim.query('COMMIT');
      while (woken.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      unwatch();
      // Woken to re-read (or with the answer): the answer is there to read.
      expect((await waiting.getAnswer(id))?.content).toEqual({ ok: true });
      await answerer.close();
    } finally {
      await claim.end();
      await Promise.all([answering.close(), waiting.close()]);
    }
  });
});
