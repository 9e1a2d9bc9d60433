/**
 * Broker: a question is state with an id, a session and a deadline, answered once, stored through keyv.
 * Knows no wire, no surface and no policy; imports the shared vocabulary, errors, paths and answer validation.
 * SQLite and Redis adapters load lazily, so this entry never pulls in a native module.
 */
export type * from './types.js';
export { createBroker } from './broker.js';
export type { StoreBroker } from './broker.js';
export { systemClock, createManualClock } from './clock.js';
export type { ManualClock } from './clock.js';
export { toBrokerStore, isBrokerStore } from './store.js';
export { openMemoryStore } from './stores/memory.js';
export { openSqliteStore, wrapSqliteKeyv } from './stores/sqlite/sqlite.js';
export type { SqliteStoreOptions } from './stores/sqlite/sqlite.js';
export { openRedisStore, wrapRedisKeyv } from './stores/redis/redis.js';
export type { RedisStoreOptions } from './stores/redis/redis.js';
export { openPostgresStore, wrapPostgresKeyv } from './stores/postgres/postgres.js';
export type { PostgresStoreOptions } from './stores/postgres/postgres.js';
export { cursorAfter } from './paging.js';
export { resolveSession } from './session.js';
export type { SessionBinding } from './session.js';
export { checkScope, inScope } from './scope.js';
export type { CallerScope } from './scope.js';
export { defaultSqlitePath } from './default-store.js';
