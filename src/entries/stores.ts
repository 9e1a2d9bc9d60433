/**
 * `mcpx/stores`: where questions live. Open one and pass it as `createMcpx({ store })` or to `createBroker`.
 * SQLite, Redis and Postgres load their drivers only when opened.
 */
export {
  openMemoryStore,
  openSqliteStore,
  openRedisStore,
  openPostgresStore,
  wrapSqliteKeyv,
  wrapRedisKeyv,
  wrapPostgresKeyv,
  toBrokerStore,
  isBrokerStore,
  defaultSqlitePath,
} from '../broker/index.js';
export type { BrokerStore, SqliteStoreOptions, RedisStoreOptions, PostgresStoreOptions } from '../broker/index.js';
