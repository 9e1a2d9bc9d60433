/**
 * A write to a keyv row that happens only while a lease says so, checked in the store in the same atomic step
 * (a Redis script, one Postgres statement that locks the lease row): `holds` writes only while `owner` holds the
 * lease unexpired, `lost` only while it does not. A daemon fences its own writes with `holds`, so one that stalled
 * past its lease cannot write over the survivor that adopted its calls; anyone judging that daemon dead writes
 * with `lost`. SQLite and memory have no leases: their writes are unfenced (`none`), one host judges by pid.
 */
import type { Keyv } from 'keyv';
import type { BrokerStore } from '../broker/index.js';
import { encodeRow, rawKey, tablesOf, sqliteAdapterOf, sqliteTableOf } from '../broker/index.js';
import { leaseTableOf, LEASES_KEY } from './leases.js';

export type Fence = { kind: 'holds' | 'lost'; lease: string; owner: string } | { kind: 'none' };

export interface FencedWrite {
  /** Writes `key` (only when absent, with `onlyIfAbsent`) if the fence allows; true when it wrote. */
  (key: string, value: unknown, ttlMs: number, fence: Fence, onlyIfAbsent?: boolean): Promise<boolean>;
}

const REDIS_FENCED = `
  if ARGV[3] ~= 'none' then
    local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    local cur = redis.call('HGET', KEYS[2], ARGV[4])
    local held = false
    if cur then local row = cjson.decode(cur) held = row.owner == ARGV[5] and tonumber(row.expiresAt) >= now end
    if (ARGV[3] == 'holds') ~= held then return 0 end
  end
  if ARGV[6] == 'NX' then
    if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end return 0
  end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1`;

type Query = (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;
type SqliteQuery = (sql: string, ...params: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** The fenced write for a store; on SQLite and memory only `none` fences are meaningful (there are no leases). */
export function openFencedWrite(store: BrokerStore): FencedWrite {
  const { keyv } = store;
  if (store.kind === 'redis') {
    return async (key, value, ttlMs, fence, onlyIfAbsent) => {
      const client = await (keyv.store as { getClient(): Promise<{ sendCommand(a: string[]): Promise<unknown> }> }).getClient();
      const row = await encodeRow(keyv, value, ttlMs);
      const [lease, owner] = fence.kind === 'none' ? ['', ''] : [fence.lease, fence.owner];
      const args = [row, String(Math.round(ttlMs)), fence.kind, lease, owner, onlyIfAbsent ? 'NX' : ''];
      return (
        Number(await client.sendCommand(['EVAL', REDIS_FENCED, '2', rawKey(keyv, key), rawKey(keyv, LEASES_KEY), ...args])) === 1
      );
    };
  }
  if (store.kind === 'postgres') {
    const query = (keyv.store as { query: Query }).query;
    const { table, namespace } = tablesOf(keyv);
    const leases = leaseTableOf(keyv);
    return async (key, value, ttlMs, fence, onlyIfAbsent) => {
      const row = await encodeRow(keyv, value, ttlMs);
      const conflict = `ON CONFLICT (key) DO ${onlyIfAbsent ? 'NOTHING' : 'UPDATE SET value = excluded.value'} RETURNING key`;
      if (fence.kind === 'none')
        return (
          (await query(`INSERT INTO ${table} AS t (key, value) VALUES ($1, $2) ${conflict}`, [rawKey(keyv, key), row])).length ===
          1
        );
      // FOR SHARE: a lease taken over concurrently is re-read after that commits, so the check is never stale.
      const rows = await query(
        `WITH l AS (SELECT owner, expires_at FROM ${leases} WHERE namespace = $3 AND name = $4 FOR SHARE),
           allowed AS (SELECT 1 WHERE $5::text = 'none' OR (($5::text = 'holds') = EXISTS (SELECT 1 FROM l
             WHERE owner = $6 AND expires_at >= (extract(epoch from clock_timestamp()) * 1000)::bigint)))
         INSERT INTO ${table} AS t (key, value) SELECT $1::text, $2::text FROM allowed ${conflict}`,
        [rawKey(keyv, key), row, namespace, fence.lease, fence.kind, fence.owner],
      );
      return rows.length === 1;
    };
  }
  if (store.kind === 'sqlite') {
    const query: SqliteQuery = sqliteAdapterOf(keyv).query;
    const table = sqliteTableOf(keyv);
    return async (key, value, ttlMs, _fence, onlyIfAbsent) => {
      const row = await encodeRow(keyv, value, ttlMs);
      const rows = await query(
        `INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO ${onlyIfAbsent ? 'NOTHING' : 'UPDATE SET value = excluded.value'} RETURNING key`,
        rawKey(keyv, key),
        row,
      );
      return rows.length === 1;
    };
  }
  return memoryWrite(keyv);
}

/** One process: a chain per keyv keeps each check and its write together. */
function memoryWrite(keyv: Keyv): FencedWrite {
  let chain: Promise<unknown> = Promise.resolve();
  return (key, value, ttlMs, _fence, onlyIfAbsent) => {
    const step = chain.then(async () => {
      if (onlyIfAbsent && (await keyv.get(key)) !== undefined) return false;
      await keyv.set(key, value, ttlMs);
      return true;
    });
    chain = step.catch(() => undefined);
    return step;
  };
}
