/**
 * A real redis-server and Postgres for the tests of the block this is called in (the file, or a describe): started
 * together before them, stopped after. The tests on a shared store (daemons, takeover, delivery, leases) each use it.
 */
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type PostgresServer } from './postgres.js';
import { startRedis, type RedisServer } from './redis.js';

export interface StoreServers {
  readonly redis: RedisServer;
  readonly postgres: PostgresServer;
}

/** The servers, read in the tests (once the hooks ran). */
export function useStoreServers(): StoreServers {
  let redis: RedisServer | undefined;
  let postgres: PostgresServer | undefined;
  beforeAll(async () => {
    [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([redis?.stop(), postgres?.stop()]);
  });
  return {
    get redis() {
      return redis!;
    },
    get postgres() {
      return postgres!;
    },
  };
}
