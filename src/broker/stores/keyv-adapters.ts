/**
 * What mcpx reads of a keyv's SQL adapter: its public `opts` (table, schema, uri) and `query`, typed by
 * @keyv/sqlite's and @keyv/postgres's own declarations (keyv types a store's `opts` as any), so an upgrade that
 * changes them fails to compile; test/dependencies/keyv-adapters.test.ts checks them at run time.
 */
import type { Keyv } from 'keyv';
import type { KeyvPostgres } from '@keyv/postgres';
import type { KeyvSqlite } from '@keyv/sqlite';

export type SqliteAdapter = Pick<KeyvSqlite, 'opts' | 'query'>;
export type PostgresAdapter = Pick<KeyvPostgres, 'opts' | 'query'>;

/** The adapter of a keyv known to be over SQLite (@keyv/sqlite's, or mcpx's own in its format). */
export function sqliteAdapterOf(keyv: Keyv): SqliteAdapter {
  return keyv.store as SqliteAdapter;
}

/** The adapter of a keyv known to be over @keyv/postgres. */
export function postgresAdapterOf(keyv: Keyv): PostgresAdapter {
  return keyv.store as PostgresAdapter;
}

/** The table of a SQLite keyv: keyv's default unless the host named one. */
export function sqliteTableOf(keyv: Keyv): string {
  return sqliteAdapterOf(keyv).opts.table ?? 'keyv';
}
