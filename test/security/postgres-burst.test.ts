/**
 * A burst of answers larger than the Postgres store's pool waits for a free pooled connection; only a store that
 * cannot be reached is STORE_UNAVAILABLE. The wait is made longer than the connect timeout on purpose: another
 * connection holds a lock on the answers' table, so both pooled connections sit in a claim while the rest of the
 * burst queues behind them.
 */
import { createServer, Socket, type Server } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroker } from '../../src/broker/broker.js';
import { openPostgresStore } from '../../src/broker/index.js';
import { isMcpxError } from '../../src/errors.js';
import type { OpenRequestInput } from '../../src/broker/types.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});

const ask: OpenRequestInput = {
  trace: 'cal-00000000000000bb',
  server: 'burst',
  tool: 'ask',
  era: 'legacy',
  mode: 'form',
  message: 'Which one?',
  requestedSchema: { type: 'object', properties: { by: { type: 'integer' } }, required: ['by'] },
};
const QUESTIONS = 200;
const ANSWERERS = 8;
const CONNECT_TIMEOUT_MS = 500;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function codeOf(reason: unknown): string {
  return isMcpxError(reason) ? reason.code : `not an McpxError: ${String(reason)}`;
}

/** A port nothing listens on (bound once, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Postgres store under a burst', () => {
  it('queues a burst larger than its pool past the connect timeout: every question answered exactly once', async () => {
    const store = await openPostgresStore(postgres.url, { poolSize: 2, connectTimeoutMs: CONNECT_TIMEOUT_MS });
    const broker = createBroker({ store, allowAnySession: true });
    const holder = new pg.Client({ connectionString: postgres.url });
    await holder.connect();
    try {
      const ids: string[] = [];
      for (let i = 0; i < QUESTIONS; i++) ids.push((await broker.openRequest(ask)).id);

      // Writes to the answers' table wait for this lock: the pool's two connections block in their claims.
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE public.keyv IN EXCLUSIVE MODE');
      const answers = ids.map((id) =>
        Promise.allSettled(
          Array.from({ length: ANSWERERS }, (_, by) => broker.respond({ id, action: 'accept', content: { by }, by: 'api' })),
        ),
      );
      for (;;) {
        const { rows } = await holder.query<{ blocked: number }>(
          `SELECT count(*)::int AS blocked FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        if (rows[0]!.blocked >= 2) break;
        await sleep(10);
      }
      // The rest of the burst now waits for a pooled connection longer than a connect may take.
      await sleep(CONNECT_TIMEOUT_MS * 3);
      await holder.query('COMMIT');

      const settled = await Promise.all(answers);
      const failures: Record<string, number> = {};
      for (const outcome of settled.flat())
        if (outcome.status === 'rejected') failures[codeOf(outcome.reason)] = (failures[codeOf(outcome.reason)] ?? 0) + 1;
      expect(failures).toEqual({ ELICITATION_ALREADY_ANSWERED: QUESTIONS * (ANSWERERS - 1) });
      for (const [i, outcomes] of settled.entries()) {
        const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        expect(won, `question ${i}`).toHaveLength(1);
        const stored = await broker.lookup(ids[i]!);
        expect(stored?.content).toEqual((won[0] as PromiseFulfilledResult<{ content?: unknown }>).value.content);
      }
      expect(await broker.pending()).toEqual([]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await broker.close();
      await store.close();
    }
  }, 120_000);

  it('fails every queued answer with STORE_UNAVAILABLE when the server goes away, and the questions stay pending', async () => {
    // A TCP relay to the real server, cut later: the store's server "goes away".
    const sockets = new Set<Socket>();
    const relay: Server = createServer((client) => {
      const upstream = new Socket().connect(postgres.port, '127.0.0.1');
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const { port } = relay.address() as { port: number };
    const store = await openPostgresStore(`postgres://postgres@127.0.0.1:${port}/postgres`, {
      poolSize: 2,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    });
    const broker = createBroker({ store, allowAnySession: true });
    const direct = await openPostgresStore(postgres.url);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await broker.openRequest(ask)).id);
      await new Promise<void>((resolve) => {
        relay.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      const settled = await Promise.allSettled(
        ids.map((id) => broker.respond({ id, action: 'accept', content: { by: 0 }, by: 'api' })),
      );
      expect(settled.map((outcome) => (outcome.status === 'rejected' ? codeOf(outcome.reason) : 'answered'))).toEqual(
        ids.map(() => 'STORE_UNAVAILABLE'),
      );
      const stillPending = await createBroker({ store: direct, allowAnySession: true }).pending();
      expect(stillPending.map((entry) => entry.id)).toEqual(expect.arrayContaining(ids));
    } finally {
      await broker.close();
      await store.close().catch(() => undefined);
      await direct.close();
    }
  }, 30_000);

  it('reports a closed port as STORE_UNAVAILABLE', async () => {
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`;
    const opened = openPostgresStore(url, { poolSize: 2, connectTimeoutMs: CONNECT_TIMEOUT_MS });
    await expect(opened).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it('still bounds connecting: a server that accepts and never answers is STORE_UNAVAILABLE', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const opened = openPostgresStore(`postgres://postgres@127.0.0.1:${port}/postgres`, {
        poolSize: 2,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
      });
      // Without a bound on connecting this would hang until the test's own timeout.
      await expect(opened).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      expect(sockets.size).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 15_000);
});
