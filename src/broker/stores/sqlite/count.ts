/**
 * How many questions wait in a SQLite state file, read with one query on a read-only connection: what a shell
 * prompt's badge needs when no daemon runs, without loading keyv or opening (or creating) the store for writing.
 * It reads the layout `openSqliteStore` writes: keyv's table `keyv`, namespace `mcpx`, the pending index under
 * `mcpx:p:` (kept by triggers), answers under `mcpx:a:`. test/broker/sqlite-count.test.ts holds it to
 * `broker.pending()` on the same file.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { notSqliteError } from './connection.js';

export interface PendingCountFilter {
  session?: string;
  /** The clock for deadlines (default Date.now()). */
  now?: number;
}

const COUNT_SQL = `SELECT count(*) AS waiting FROM keyv p
  WHERE p.key >= 'mcpx:p:' AND p.key < 'mcpx:p;'
    AND NOT EXISTS (SELECT 1 FROM keyv a WHERE a.key = 'mcpx:a:' || substr(p.key, 8))
    AND json_extract(p.value, '$.value.state') = 'pending'
    AND json_extract(p.value, '$.value.expiresAt') > ?
    AND (? IS NULL OR json_extract(p.value, '$.value.session') = ?)`;

type Sqlite3 = typeof import('sqlite3');

/** Pending (unanswered, not abandoned, before their deadline) questions in the file; 0 when there is no file. */
export async function countPendingInSqliteFile(path: string, filter: PendingCountFilter = {}): Promise<number> {
  if (!existsSync(path)) return 0;
  // sqlite3 is @keyv/sqlite's own dependency: resolved from there, loaded (native, CommonJS) only here.
  const sqlite3 = createRequire(import.meta.resolve('@keyv/sqlite'))('sqlite3') as Sqlite3;
  const db = await new Promise<InstanceType<Sqlite3['Database']>>((resolve, reject) => {
    const opened: InstanceType<Sqlite3['Database']> = new sqlite3.Database(path, sqlite3.OPEN_READONLY, (error) =>
      error ? reject(notSqliteError(path, error) ?? error) : resolve(opened),
    );
  });
  try {
    db.configure('busyTimeout', 2_000);
    const session = filter.session ?? null;
    return await new Promise<number>((resolve, reject) =>
      db.get(
        COUNT_SQL,
        [filter.now ?? Date.now(), session, session],
        (error: Error | null, row: { waiting?: number } | undefined) => {
          // A file the store never initialised has no keyv table: nothing waits in it.
          if (error) return /no such table/.test(error.message) ? resolve(0) : reject(notSqliteError(path, error) ?? error);
          resolve(row?.waiting ?? 0);
        },
      ),
    );
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}
