/** Turns what a host hands the broker (a BrokerStore, or a keyv instance) into a BrokerStore. */
import type { Keyv } from 'keyv';
import { McpxError } from '../errors.js';
import { openMemoryStore } from './stores/memory.js';
import { isPostgresAdapter, wrapPostgresKeyv } from './stores/postgres/postgres.js';
import { isRedisAdapter, wrapRedisKeyv } from './stores/redis/redis.js';
import { isSqliteAdapter, wrapSqliteKeyv } from './stores/sqlite/sqlite.js';
import type { BrokerStore } from './types.js';

export function isBrokerStore(value: unknown): value is BrokerStore {
  const store = value as Partial<BrokerStore> | undefined;
  return typeof store?.claimAnswer === 'function' && typeof store.putQuestion === 'function' && typeof store.watch === 'function';
}

/**
 * A keyv over a Map, @keyv/sqlite, @keyv/redis or @keyv/postgres becomes a BrokerStore (the same wrapper for the same keyv).
 * keyv swallows store errors by default, which would make a store that is down read as "not found":
 * the broker turns `throwOnErrors` on. Any other adapter is refused: keyv has no compare-and-set, and
 * answer-once needs the store's own atomic primitive.
 */
export function toBrokerStore(store?: BrokerStore | Keyv): BrokerStore {
  if (store === undefined) return openMemoryStore();
  if (isBrokerStore(store)) return store;
  const keyv = store as Keyv;
  if (!keyv || typeof keyv.get !== 'function' || !('store' in keyv)) {
    throw new McpxError('STORE_UNSUPPORTED', 'the broker store must be a BrokerStore or a keyv instance (new Keyv({ store }))', {
      data: { got: typeof store },
    });
  }
  keyv.throwOnErrors = true;
  if (keyv.store instanceof Map) return openMemoryStore(keyv);
  if (isSqliteAdapter(keyv.store)) return wrapSqliteKeyv(keyv);
  if (isRedisAdapter(keyv.store)) return wrapRedisKeyv(keyv);
  if (isPostgresAdapter(keyv.store)) return wrapPostgresKeyv(keyv);
  const name = (keyv.store as { constructor?: { name?: string } }).constructor?.name ?? 'unknown';
  throw new McpxError(
    'STORE_UNSUPPORTED',
    `the keyv adapter ${name} has no atomic put-if-absent the broker knows; use a Map, @keyv/sqlite, @keyv/redis or @keyv/postgres, or implement BrokerStore (see docs/stores.md)`,
    { data: { adapter: name } },
  );
}
