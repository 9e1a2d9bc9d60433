/** The Postgres store's tables (keyv's own, the pending index, the audit log), their names and their creation. */
import type { Keyv } from 'keyv';
import { postgresAdapterOf } from '../keyv-adapters.js';

export type Query = (sql: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** The quoted names a store's statements use, from the keyv adapter's schema and table and keyv's namespace. */
export interface PostgresTables {
  table: string;
  pendingTable: string;
  logTable: string;
  /** The LISTEN/NOTIFY channel answers are announced on. */
  channel: string;
  namespace: string;
}

export function tablesOf(keyv: Keyv): PostgresTables {
  const { opts } = postgresAdapterOf(keyv);
  const schema = ident(opts.schema ?? 'public');
  const namespace = keyv.namespace ?? '';
  return {
    table: `${schema}.${ident(opts.table ?? 'keyv')}`,
    pendingTable: `${schema}.${ident(`${opts.table ?? 'keyv'}_mcpx_pending`)}`,
    logTable: `${schema}.${ident(`${opts.table ?? 'keyv'}_mcpx_log`)}`,
    namespace,
    channel: `${opts.table ?? 'keyv'}_mcpx_answered_${namespace}`.slice(0, 63),
  };
}

/** Creates the tables and indexes unless they all exist already. */
export async function createTables(keyv: Keyv, rawQuery: Query, tables: PostgresTables): Promise<void> {
  const { opts } = postgresAdapterOf(keyv);
  const schema = opts.schema ?? 'public';
  const base = opts.table ?? 'keyv';
  const objects = [tables.table, tables.pendingTable, tables.logTable, `${ident(schema)}.${ident(`${base}_mcpx_pending_order`)}`];
  // Every open checks first: DDL on tables in use takes locks that can deadlock with other processes' writes.
  const exists = async (): Promise<boolean> => {
    const [row] = await rawQuery(
      `SELECT ${objects.map((_, i) => `to_regclass($${i + 1}) IS NOT NULL`).join(' AND ')} AS ready`,
      objects,
    );
    return row?.ready === true;
  };
  if (await exists()) return;
  const index = (name: string, on: string, columns: string): string =>
    `DO $$ BEGIN IF to_regclass(${literal(`${ident(schema)}.${ident(name)}`)}) IS NULL THEN CREATE INDEX ${ident(name)} ON ${on} (${columns}); END IF; END $$`;
  const statements = [
    `CREATE TABLE IF NOT EXISTS ${tables.table} (key VARCHAR(255) PRIMARY KEY, value TEXT)`,
    `CREATE TABLE IF NOT EXISTS ${tables.pendingTable} (namespace TEXT NOT NULL, id TEXT NOT NULL, created_at BIGINT NOT NULL, expires BIGINT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (namespace, id))`,
    index(`${base}_mcpx_pending_order`, tables.pendingTable, 'namespace, created_at, id'),
    // No index on the log's expires: every claim paid for it, and only the retention delete beside a read of the
    // whole log used it. Tables made before keep theirs (dropping it would lock the log against writers).
    `CREATE TABLE IF NOT EXISTS ${tables.logTable} (seq BIGSERIAL PRIMARY KEY, namespace TEXT NOT NULL, at BIGINT NOT NULL, expires BIGINT NOT NULL, value TEXT NOT NULL)`,
  ];
  // One string, no parameters: Postgres runs it as one transaction, and the advisory lock makes processes
  // that open the same database at once create the tables one after another (concurrent IF NOT EXISTS can fail).
  const create = (): Promise<unknown> =>
    rawQuery(`BEGIN; SELECT pg_advisory_xact_lock(hashtext('mcpx-schema')); ${statements.join('; ')}; COMMIT`);
  // A host's own adapter creates its table without the lock: if that raced ours, the tables exist now.
  await create().catch((error: { code?: string }) => {
    if (['23505', '42P07', '42710'].includes(error.code ?? '')) return create();
    throw error;
  });
}

export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
