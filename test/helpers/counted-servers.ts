/**
 * Real Redis and Postgres servers and a temporary folder for SQLite files, for the tests of the block this is called
 * in, with the trip counter (store-trips.ts) counting the round trips on their sockets: what the tests that count a
 * store's trips (broker/round-trips, tasks/delivery-wake) each set up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type PostgresServer } from './postgres.js';
import { startRedis, type RedisServer } from './redis.js';
import { tripCounter, type TripCounter } from './store-trips.js';

export interface CountedServers {
  readonly redis: RedisServer;
  readonly postgres: PostgresServer;
  /** A fresh folder, removed after the tests. */
  readonly dir: string;
  readonly counter: TripCounter;
}

/** Started before the tests (the folder named with `prefix`), stopped and removed after them. */
export function useCountedServers(prefix: string): CountedServers {
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  let dir: string | undefined;
  const counter = tripCounter();
  beforeAll(async () => {
    const [r, p] = await Promise.all([startRedis(), startPostgres()]);
    [redis, postgres] = [r, p];
    dir = mkdtempSync(join(tmpdir(), prefix));
    counter.label = (socket) => (socket.remotePort === r.port ? 'redis' : socket.remotePort === p.port ? 'postgres' : undefined);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([redis?.stop(), postgres?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get redis() {
      return redis!;
    },
    get postgres() {
      return postgres!;
    },
    get dir() {
      return dir!;
    },
    counter,
  };
}
