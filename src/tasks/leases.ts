/**
 * Leases in a shared store (Redis or Postgres): a named row with an owner and a deadline, taken atomically by one
 * owner at a time. A daemon keeps its holder's lease alive; a lease left to lapse means its daemon is gone, and the
 * first survivor to take it over (the same atomic step) adopts the calls. Deadlines are judged by the store's clock,
 * so hosts whose clocks disagree still agree on who holds what. The rows are few (one per daemon), so a survivor
 * reads them all instead of any task.
 */
import type { Keyv } from 'keyv';
import type { BrokerStore } from '../broker/index.js';
import { rawKey, postgresAdapterOf } from '../broker/index.js';
import { McpxError } from '../errors.js';

export interface Lease {
  name: string;
  owner: string;
  /** ms since epoch, on the store's clock; 0 once let go. */
  expiresAt: number;
}

export interface Leases {
  /**
   * Takes or renews `name` for `owner` until the store's now + `ttlMs`, in one atomic step: only when it is free,
   * lapsed, already `owner`'s, or held by `replace` (an owner known to be dead). True when `owner` holds it now.
   */
  acquire(name: string, owner: string, ttlMs: number, replace?: string): Promise<boolean>;
  /**
   * Extends `name` while `owner` is still its owner, lapsed or not: a lease nobody took is re-acquired (its holder
   * only stalled), one taken over (`acquire`, `seize`) or dropped is never taken back. Whoever acts on a holder
   * judged dead first changes the owner in the store, so the compare on the owner is the fence.
   */
  renew(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /**
   * Takes a lapsed lease from `owner` without holding it (owner `lost:<owner>`, lapsed), so `owner` can never renew
   * it again: for whoever takes a call over from a holder judged dead by its lease. True when `owner` no longer holds
   * it (seized now, already taken, or gone); false while it holds it unexpired.
   */
  seize(name: string, owner: string): Promise<boolean>;
  /** Lets the lease lapse now (if `owner` holds it), keeping its row so others see there is work to take over. */
  lapse(name: string, owner: string): Promise<void>;
  /** Drops the row (if `owner` holds it): nothing is left to take over. */
  remove(name: string, owner: string): Promise<void>;
  /** Every lease, and the store's clock to judge them by. */
  list(): Promise<{ now: number; leases: Lease[] }>;
}

/** How long a holder's lease on a shared store lasts unrenewed (renewed every third): MCPX_LEASE_MS, else 15 s. */
export const DEFAULT_LEASE_MS = 15_000;

export function leaseMsFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.MCPX_LEASE_MS;
  if (raw === undefined || raw === '') return DEFAULT_LEASE_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 300)
    throw new McpxError(
      'CONFIG_INVALID',
      `MCPX_LEASE_MS takes a whole number of milliseconds >= 300, got ${JSON.stringify(raw)}`,
    );
  return ms;
}

/** Leases for a store several hosts share; undefined for memory and SQLite (one host: the lock file suffices). */
export function openLeases(store: BrokerStore): Leases | undefined {
  if (store.kind === 'redis') return redisLeases(store.keyv);
  if (store.kind === 'postgres') return postgresLeases(store.keyv);
  return undefined;
}

// The store's clock in ms (TIME: seconds and microseconds).
const REDIS_NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
// ARGV[5] = 'renew': only a row we own is extended (lapsed too: nobody took it).
const REDIS_ACQUIRE = `${REDIS_NOW}
  local cur = redis.call('HGET', KEYS[1], ARGV[1])
  if ARGV[5] == 'renew' and (not cur or cjson.decode(cur).owner ~= ARGV[2]) then return 0 end
  if cur then
    local row = cjson.decode(cur)
    if row.owner ~= ARGV[2] and row.owner ~= ARGV[4] and tonumber(row.expiresAt) >= now then return 0 end
  end
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({ owner = ARGV[2], expiresAt = now + tonumber(ARGV[3]) })) return 1`;
const REDIS_LET_GO = `local cur = redis.call('HGET', KEYS[1], ARGV[1])
  if not cur or cjson.decode(cur).owner ~= ARGV[2] then return 0 end
  if ARGV[3] == 'remove' then redis.call('HDEL', KEYS[1], ARGV[1])
  else redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({ owner = ARGV[2], expiresAt = 0 })) end return 1`;
const REDIS_SEIZE = `${REDIS_NOW}
  local cur = redis.call('HGET', KEYS[1], ARGV[1])
  if not cur then return 1 end
  local row = cjson.decode(cur)
  if row.owner ~= ARGV[2] then return 1 end
  if tonumber(row.expiresAt) >= now then return 0 end
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({ owner = 'lost:' .. ARGV[2], expiresAt = 0 })) return 1`;
const REDIS_LIST = `${REDIS_NOW} return { tostring(now), redis.call('HGETALL', KEYS[1]) }`;

interface RedisClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** The key of the Redis hash of leases (through `rawKey`), for scripts that check a lease. */
export const LEASES_KEY = 'leases';

/** The quoted Postgres table of leases, for statements that check a lease. */
export function leaseTableOf(keyv: Keyv): string {
  const { opts } = postgresAdapterOf(keyv);
  return `${ident(opts.schema ?? 'public')}.${ident(`${opts.table ?? 'keyv'}_mcpx_leases`)}`;
}

function redisLeases(keyv: Keyv): Leases {
  const key = rawKey(keyv, LEASES_KEY);
  const evaluate = async (script: string, args: Array<string | number>): Promise<unknown> => {
    const client = await (keyv.store as { getClient(): Promise<RedisClient> }).getClient();
    return client.sendCommand(['EVAL', script, '1', key, ...args.map(String)]);
  };
  return {
    acquire: async (name, owner, ttlMs, replace) =>
      Number(await evaluate(REDIS_ACQUIRE, [name, owner, Math.round(ttlMs), replace ?? '', 'acquire'])) === 1,
    renew: async (name, owner, ttlMs) =>
      Number(await evaluate(REDIS_ACQUIRE, [name, owner, Math.round(ttlMs), '', 'renew'])) === 1,
    seize: async (name, owner) => Number(await evaluate(REDIS_SEIZE, [name, owner])) === 1,
    lapse: async (name, owner) => void (await evaluate(REDIS_LET_GO, [name, owner, 'lapse'])),
    remove: async (name, owner) => void (await evaluate(REDIS_LET_GO, [name, owner, 'remove'])),
    async list() {
      const [now, flat] = (await evaluate(REDIS_LIST, [])) as [string, string[]];
      const leases: Lease[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const row = JSON.parse(flat[i + 1]!) as { owner: string; expiresAt: number };
        leases.push({ name: flat[i]!, owner: row.owner, expiresAt: Number(row.expiresAt) });
      }
      return { now: Number(now), leases };
    },
  };
}

type Query = (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

const PG_NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

function postgresLeases(keyv: Keyv): Leases {
  const adapter = keyv.store as { query: Query };
  const table = leaseTableOf(keyv);
  const namespace = keyv.namespace ?? '';
  // Checked before creating: DDL on a table in use takes locks; the advisory lock serialises first opens.
  const ready = (async () => {
    const [row] = await adapter.query(`SELECT to_regclass($1) IS NOT NULL AS ready`, [table]);
    if (row?.ready === true) return;
    await adapter.query(
      `BEGIN; SELECT pg_advisory_xact_lock(hashtext('mcpx-schema'));
       CREATE TABLE IF NOT EXISTS ${table} (namespace TEXT NOT NULL, name TEXT NOT NULL, owner TEXT NOT NULL,
         expires_at BIGINT NOT NULL, PRIMARY KEY (namespace, name)); COMMIT`,
    );
  })();
  ready.catch(() => undefined);
  const query: Query = async (sql, params) => {
    await ready;
    return adapter.query(sql, params);
  };
  return {
    async acquire(lease, owner, ttlMs, replace) {
      const rows = await query(
        `INSERT INTO ${table} AS l (namespace, name, owner, expires_at) VALUES ($1, $2, $3, ${PG_NOW} + $4::bigint)
         ON CONFLICT (namespace, name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
         WHERE l.owner = $3 OR l.owner = $5 OR l.expires_at < ${PG_NOW}
         RETURNING name`,
        [namespace, lease, owner, Math.round(ttlMs), replace ?? ''],
      );
      return rows.length === 1;
    },
    async renew(lease, owner, ttlMs) {
      const rows = await query(
        `UPDATE ${table} SET expires_at = ${PG_NOW} + $4::bigint
         WHERE namespace = $1 AND name = $2 AND owner = $3 RETURNING name`,
        [namespace, lease, owner, Math.round(ttlMs)],
      );
      return rows.length === 1;
    },
    async seize(lease, owner) {
      // The row locked by the UPDATE (or read when it is not ours to seize): a concurrent renew waits for us.
      const [row] = await query(
        `WITH s AS (UPDATE ${table} SET owner = 'lost:' || owner, expires_at = 0
           WHERE namespace = $1 AND name = $2 AND owner = $3 AND expires_at < ${PG_NOW} RETURNING 1)
         SELECT EXISTS (SELECT 1 FROM s) OR NOT EXISTS (SELECT 1 FROM ${table}
           WHERE namespace = $1 AND name = $2 AND owner = $3) AS lost`,
        [namespace, lease, owner],
      );
      return row?.lost === true;
    },
    lapse: async (lease, owner) =>
      void (await query(`UPDATE ${table} SET expires_at = 0 WHERE namespace = $1 AND name = $2 AND owner = $3`, [
        namespace,
        lease,
        owner,
      ])),
    remove: async (lease, owner) =>
      void (await query(`DELETE FROM ${table} WHERE namespace = $1 AND name = $2 AND owner = $3`, [namespace, lease, owner])),
    async list() {
      const [clock] = await query(`SELECT ${PG_NOW} AS now`);
      const rows = await query(`SELECT name, owner, expires_at FROM ${table} WHERE namespace = $1`, [namespace]);
      return {
        now: Number(clock?.now),
        leases: rows.map((r) => ({ name: r.name as string, owner: r.owner as string, expiresAt: Number(r.expires_at) })),
      };
    },
  };
}

function ident(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}
