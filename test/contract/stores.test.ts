import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keyv } from 'keyv';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openPostgresStore, openRedisStore, openSqliteStore } from '../../src/broker/index.js';
import { storeComplianceCases, type StoreFactory } from '../../src/testing/index.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

function register(name: string, factory: () => StoreFactory): void {
  // Cases are listed up front so each is its own test; the factory resolves lazily once the store is up.
  describe(`store compliance: ${name}`, () => {
    for (const testCase of storeComplianceCases({ open: () => factory().open() })) it(testCase.name, testCase.run);
  });
}

const memory = new Keyv({ store: new Map(), namespace: 'mcpx' });
register('memory (keyv over a Map)', () => ({ open: async () => memory }));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpx-contract-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
register('SQLite file (@keyv/sqlite, a new connection per handle)', () => ({
  open: () => openSqliteStore(join(dir, 'mcpx.sqlite')),
}));

let redis: RedisServer | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});
register('Redis (@keyv/redis on a real redis-server, a new connection per handle)', () => ({
  open: () => openRedisStore(redis!.url),
}));

let postgres: PostgresServer | undefined;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});
register('Postgres (@keyv/postgres on a real server from initdb, a new pool per handle)', () => ({
  open: () => openPostgresStore(postgres!.url),
}));
