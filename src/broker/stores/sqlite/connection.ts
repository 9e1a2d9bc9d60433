/**
 * The one SQLite connection a store opened by `openSqliteStore` runs on, with every statement prepared once and
 * kept: SQLite compiles an insert on the keyv table together with the triggers it fires, and that compiling cost
 * about three times the insert itself (767 µs against 211 µs for a question's write). The keyv adapter's reads and
 * writes (sqlite-adapter.ts) go through the same connection, so one process never waits on its own write lock.
 */
import { createRequire } from 'node:module';
import type { Database, Statement } from 'sqlite3';
import { McpxError } from '../../../errors.js';

type Rows = Array<Record<string, unknown>>;

/** Prepared statements kept per connection (the store uses a few dozen; a batched write has one per batch size). */
const KEPT = 256;
/** Statements between background checkpoints: a question's write and its answer's are about 18 pages together. */
const CHECKPOINT_EVERY = 100;
/** Pages of WAL past which the writing connection checkpoints itself (SQLite's own default is 1,000). */
const AUTOCHECKPOINT_FALLBACK = 10_000;

export interface SqliteConnection {
  query(sql: string, ...params: unknown[]): Promise<Rows>;
  /**
   * A statement SQLite may refuse at once with SQLITE_BUSY, its busy handler not called (a lock upgrade, refused to
   * avoid deadlock, as switching to WAL while another process writes): tried again as that handler would wait.
   */
  queryWhenFree(sql: string): Promise<Rows>;
  close(): Promise<void>;
}

export async function connectSqlite(path: string, busyTimeoutMs: number): Promise<SqliteConnection> {
  // sqlite3 is @keyv/sqlite's own dependency: resolved from there, loaded (native, CommonJS) only here.
  const sqlite3 = createRequire(import.meta.resolve('@keyv/sqlite'))('sqlite3') as typeof import('sqlite3');
  const db = await new Promise<Database>((resolve, reject) => {
    const opened: Database = new sqlite3.Database(path, (error) => (error ? reject(error) : resolve(opened)));
  });
  db.configure('busyTimeout', busyTimeoutMs);
  const checkpointer = createCheckpointer(sqlite3, path);
  // The checkpointer keeps the WAL short; this connection checkpoints only if it falls far behind.
  await new Promise<void>((resolve, reject) =>
    db.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_FALLBACK}`, (error) => (error ? reject(error) : resolve())),
  );
  // Least recently used first: a hit moves to the end, the oldest is finalized when the map is full.
  const kept = new Map<string, Promise<Statement>>();
  const prepared = (sql: string): Promise<Statement> => {
    const found = kept.get(sql);
    if (found) {
      kept.delete(sql);
      kept.set(sql, found);
      return found;
    }
    // sqlite3 never calls back a statement whose preparing failed: wait for it, and keep only what prepared.
    const statement = new Promise<Statement>((resolve, reject) => {
      const made: Statement = db.prepare(sql, (error) => (error ? reject(error) : resolve(made)));
    });
    kept.set(sql, statement);
    statement.catch(() => kept.get(sql) === statement && kept.delete(sql));
    if (kept.size > KEPT) {
      const [oldest, evicted] = kept.entries().next().value as [string, Promise<Statement>];
      kept.delete(oldest);
      void evicted.then(
        (s) => s.finalize(),
        () => undefined,
      );
    }
    return statement;
  };
  // A statement prepared once the close has finalized the kept ones is never finalized, and sqlite3_close then fails
  // (SQLITE_BUSY) and leaves the file open: a query arriving during the close (a call's late clean-up) is refused, as
  // one arriving after it is, and the close waits for those already running.
  let closing: Promise<void> | undefined;
  let running = 0;
  let idle: (() => void) | undefined;
  const connection: SqliteConnection = {
    query: async (sql, ...params) => {
      if (closing) throw closedError();
      running++;
      try {
        const statement = await prepared(sql);
        checkpointer.counted();
        return await new Promise<Rows>((resolve, reject) =>
          statement.all(bindings(params), (error: Error | null, rows: Rows) => (error ? reject(error) : resolve(rows))),
        );
      } finally {
        if (--running === 0) idle?.();
      }
    },
    close: () =>
      (closing ??= (async () => {
        if (running > 0) await new Promise<void>((resolve) => (idle = resolve));
        await checkpointer.close();
        const statements = [...kept.values()];
        kept.clear();
        for (const statement of statements)
          await statement.then(
            (s) => s.finalize(),
            () => undefined,
          );
        await new Promise<void>((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
      })()),
    queryWhenFree: (sql) => retryWhileBusy(() => connection.query(sql), busyTimeoutMs),
  };
  return connection;
}

/** What sqlite3 itself says to a query on a closed database. */
const closedError = (): Error =>
  Object.assign(new Error('SQLITE_MISUSE: Database is closed'), { errno: 21, code: 'SQLITE_MISUSE' });

/**
 * Copies the WAL back into the database file from a connection of its own, in the background: a checkpoint
 * syncs the file (twice), and run by the writing connection (SQLite's automatic one, every 1,000 pages) it held up
 * the commit that crossed the mark, which cost the SQLite cycle more than its statements (interleaved: 700-800 µs
 * per question and answer written that way, 130-300 µs with this). It runs as often as the automatic one would
 * (every CHECKPOINT_EVERY statements, about 1,000 pages of writes) and with the same `synchronous = NORMAL`, so
 * what a power cut can lose is unchanged; a PASSIVE checkpoint never blocks a reader or the writer.
 */
function createCheckpointer(sqlite3: typeof import('sqlite3'), path: string): { counted(): void; close(): Promise<void> } {
  let since = 0;
  let running: Promise<void> | undefined;
  let connection: Promise<Database> | undefined;
  let closed = false;
  const run = (db: Database, sql: string): Promise<void> =>
    new Promise<void>((resolve, reject) => db.run(sql, (error) => (error ? reject(error) : resolve())));
  const open = (): Promise<Database> =>
    (connection ??= new Promise<Database>((resolve, reject) => {
      const opened: Database = new sqlite3.Database(path, (error) => (error ? reject(error) : resolve(opened)));
    }).then(async (db) => {
      await run(db, 'PRAGMA synchronous = NORMAL');
      return db;
    }));
  return {
    counted() {
      if (++since < CHECKPOINT_EVERY || running || closed) return;
      since = 0;
      running = open()
        .then((db) => run(db, 'PRAGMA wal_checkpoint(PASSIVE)'))
        // A checkpoint that could not run (the file busy, a transient error) is retried after the next writes.
        .catch(() => undefined)
        .finally(() => (running = undefined));
    },
    async close() {
      closed = true;
      await running;
      const db = await connection?.catch(() => undefined);
      if (db) await new Promise<void>((resolve) => db.close(() => resolve()));
    },
  };
}

/** As `db.all(sql, ...params)` reads them: one array (or named-parameter object) is the whole list. */
function bindings(params: unknown[]): unknown {
  const [first] = params;
  return params.length === 1 && typeof first === 'object' && first !== null && !Buffer.isBuffer(first) ? first : params;
}

/** Runs `statement` again while it fails with SQLITE_BUSY, for up to `timeoutMs`, pausing as SQLite's busy handler does. */
async function retryWhileBusy<T>(statement: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      return await statement();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() + pause > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** The files SQLite keeps beside a database in WAL mode (and its rollback journal while it switches). */
export const SQLITE_COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * A file SQLite refuses as a database (overwritten with something else, or damaged): what it is and what to do,
 * instead of a hint about permissions. Undefined for any other failure.
 */
export function notSqliteError(path: string, error: unknown): McpxError | undefined {
  const code = (error as { code?: unknown }).code;
  if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') return undefined;
  const what = code === 'SQLITE_NOTADB' ? 'is not a SQLite database' : 'is a damaged SQLite database';
  return new McpxError(
    'STORE_UNAVAILABLE',
    `the state file ${path} ${what}, so mcpx cannot read its questions and calls. Move it aside (with its -wal and -shm files, if any), and the next command starts a new, empty one: mv ${path} ${path}.broken`,
    { cause: error, data: { store: 'sqlite', path, reason: code } },
  );
}

/** Why the SQLite store at `path` could not be opened, and what to do about it. */
export function sqliteOpenError(path: string, error: unknown): McpxError {
  return (
    notSqliteError(path, error) ??
    new McpxError(
      'STORE_UNAVAILABLE',
      `cannot open the SQLite store at ${path}: ${(error as Error).message}. Check that the directory is writable (MCPX_STATE_DIR moves it).`,
      { cause: error, data: { store: 'sqlite', path } },
    )
  );
}
