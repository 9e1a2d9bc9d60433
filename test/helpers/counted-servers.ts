/**
 * Real Redis and Postgres servers and a temporary folder for SQLite files, for the tests of the block this is called
 * in, with the trip counter (store-trips.ts) counting the round trips on their sockets: what the tests that count a
 * store's trips (broker/round-trips, tasks/delivery-wake) each set up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { useStoreServers, type StoreServers } from './store-servers.js';
import { tripCounter, type TripCounter } from './store-trips.js';

export interface CountedServers extends StoreServers {
  /** A fresh folder, removed after the tests. */
  readonly dir: string;
  readonly counter: TripCounter;
}

/** Started before the tests (the folder named with `prefix`), stopped and removed after them. */
export function useCountedServers(prefix: string): CountedServers {
  const servers = useStoreServers();
  let dir: string | undefined;
  const counter = tripCounter();
  beforeAll(() => {
    const [redis, postgres] = [servers.redis, servers.postgres];
    dir = mkdtempSync(join(tmpdir(), prefix));
    counter.label = (socket) =>
      socket.remotePort === redis.port ? 'redis' : socket.remotePort === postgres.port ? 'postgres' : undefined;
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get redis() {
      return servers.redis;
    },
    get postgres() {
      return servers.postgres;
    },
    get dir() {
      return dir!;
    },
    counter,
  };
}
