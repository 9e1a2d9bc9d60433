/**
 * The CLI and daemon default: keyv over one SQLite file in @keyv/sqlite's format, shared by every process on the machine. The atomic
 * step is an upsert that only replaces an expired row; file locking makes it cross-process. Cross-process waiters
 * poll `PRAGMA data_version` (SQLite has no change feed). The pending index (`p:` rows) is kept by triggers on the
 * keyv table, so a question and its index entry are one statement: a crash cannot split them.
 */
import { dirname } from 'node:path';
import { Keyv } from 'keyv';
import { ensurePrivateFile, makePrivateDir } from '../../../private-files.js';
import type { BrokerEvent, BrokerStore, ClaimOptions, ElicitRequest, PutOptions, StoredAnswer, StoreRow } from '../../types.js';
import { decodeRowsSync, encodeRow, keys, prefixEnd, rawKey, serializeLikeKeyv } from '../rows.js';
import { schemaStatements } from './schema.js';
import { connectSqlite, sqliteOpenError, SQLITE_COMPANIONS, type SqliteConnection } from './connection.js';
import { openSqliteAdapter } from './adapter.js';
import { onePerKeyv } from '../per-keyv.js';
import { sqliteAdapterOf, sqliteTableOf } from '../keyv-adapters.js';
import { ClaimListeners, Watchers, type Watcher } from '../watchers.js';

type Query = (sql: string, ...params: unknown[]) => Promise<Array<Record<string, unknown>>>;

export interface SqliteStoreOptions {
  /** How often a waiter checks for answers written by other processes (ms): 4. */
  pollIntervalMs?: number;
  /** How long a write waits for another process's lock (ms): 10 000. */
  busyTimeoutMs?: number;
}

/** Is this keyv's store a SQLite adapter (@keyv/sqlite's or sqlite-adapter.ts)? Duck-typed so the root entry never loads sqlite3. */
export function isSqliteAdapter(store: unknown): boolean {
  const s = store as { query?: unknown; opts?: { dialect?: string } } | undefined;
  return typeof s?.query === 'function' && s.opts?.dialect === 'sqlite';
}

class SqliteStore implements BrokerStore {
  readonly kind = 'sqlite' as const;
  private readonly query: Query;
  private readonly table: string;
  /** The audit log: its own table, ordered by an autoincrement sequence (write order), never by the clock. */
  private readonly logTable: string;
  private readonly watchers = new Watchers();
  private readonly rowWatchers = new Watchers();
  private readonly claims = new ClaimListeners();
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private dataVersion = -1;
  private closed = false;
  /** The log table and triggers are in place (created in one transaction on this connection). */
  readonly ready: Promise<void>;

  constructor(
    readonly keyv: Keyv,
    private readonly pollIntervalMs: number,
  ) {
    const adapter = sqliteAdapterOf(keyv);
    this.table = sqliteTableOf(keyv);
    this.logTable = `${this.table}_mcpx_log`;
    this.ready = this.createTriggers(adapter.query);
    this.ready.catch(() => undefined);
    this.query = async (sql, ...params) => {
      await this.ready;
      return adapter.query(sql, ...params);
    };
  }

  private async createTriggers(query: Query): Promise<void> {
    const statements = schemaStatements(this.keyv, this.table, this.logTable);
    // One transaction, so two processes opening the same file at once cannot both migrate or half-create.
    await query('BEGIN IMMEDIATE');
    try {
      for (const sql of statements) await query(sql);
      await query('COMMIT');
    } catch (error) {
      await query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /**
   * Writes the row when the key is absent or its row has expired; true when this call wrote it. With `openQuestion`
   * (a question's raw key), only while that question is stored, live and not abandoned.
   */
  /** Other processes see the row at their next data_version tick (it moves with every commit): no wake to send. */
  async putIfAbsent(key: string, value: unknown, ttlMs: number, options: PutOptions = {}): Promise<boolean> {
    if (!(await this.put(key, value, ttlMs))) return false;
    if (options.wake) this.rowWatchers.wake(key);
    return true;
  }

  private async put(
    key: string,
    value: unknown,
    ttlMs: number,
    openQuestion: string | null = null,
    rows: StoreRow[] = [],
  ): Promise<boolean> {
    const row = await encodeRow(this.keyv, value, ttlMs);
    const along = await Promise.all(
      rows.map(async (r) => ({ key: rawKey(this.keyv, r.key), row: await encodeRow(this.keyv, r.value, r.ttlMs) })),
    );
    return new Promise<boolean>((resolve, reject) =>
      this.puts.add({ key: rawKey(this.keyv, key), row, openQuestion, along, resolve, reject }),
    );
  }

  /**
   * Group commit: while one put-if-absent statement is in flight, the next ones queue and go together as one
   * multi-row upsert; RETURNING names the rows written. A key twice in one batch: the later one loses. Rows that
   * go `along` with a put (a task's record with its question) are in the same statement and replace what is there.
   */
  private readonly puts = createBatcher<{
    key: string;
    row: string;
    openQuestion: string | null;
    along?: Array<{ key: string; row: string }>;
    resolve: (won: boolean) => void;
    reject: (error: unknown) => void;
  }>(async (batch) => {
    const first = new Map<string, { key: string; row: string; openQuestion: string | null }>();
    const always: string[] = [];
    for (const entry of batch) {
      for (const row of entry.along ?? []) {
        if (first.has(row.key)) continue;
        first.set(row.key, { ...row, openQuestion: null });
        always.push(row.key);
      }
      if (!first.has(entry.key)) first.set(entry.key, entry);
    }
    const unique = [...first.values()];
    const t = this.table;
    const now = Date.now();
    try {
      // One statement (SQLite runs one writer at a time): the open check and the claim cannot be split by an abandon.
      const rows = await this.query(
        `INSERT INTO ${t} (key, value) SELECT v.column1, v.column2 FROM (VALUES ${unique.map(() => '(?, ?, ?)').join(', ')}) AS v
         WHERE v.column3 IS NULL OR EXISTS (SELECT 1 FROM ${t} q WHERE q.key = v.column3 AND json_extract(q.value, '$.expires') >= ?
           AND json_extract(q.value, '$.value.state') IS NOT 'abandoned')
         ON CONFLICT(key) DO UPDATE SET value = excluded.value WHERE json_extract(${t}.value, '$.expires') < ?${
           always.length ? ' OR excluded.key IN (SELECT value FROM json_each(?))' : ''
         } RETURNING key`,
        ...unique.flatMap((e) => [e.key, e.row, e.openQuestion]),
        now,
        now,
        ...(always.length ? [JSON.stringify(always)] : []),
      );
      const written = new Set(rows.map((r) => r.key));
      for (const entry of batch) entry.resolve(first.get(entry.key) === entry && written.has(entry.key));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  });

  /** Reads batch the same way: one SELECT for every key asked for while the previous read was in flight. */
  private readonly reads = createBatcher<{
    keys: string[];
    resolve: (rows: Map<string, unknown>) => void;
    reject: (error: unknown) => void;
  }>(async (batch) => {
    try {
      const rows = await this.query(
        `SELECT key, value FROM ${this.table} WHERE key IN (SELECT value FROM json_each(?))`,
        JSON.stringify(batch.flatMap((b) => b.keys)),
      );
      const found = new Map(rows.map((r) => [r.key as string, r.value]));
      for (const entry of batch) entry.resolve(found);
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  });

  private async range(prefix: string): Promise<unknown[]> {
    const raw = rawKey(this.keyv, prefix);
    const rows = await this.query(`SELECT value FROM ${this.table} WHERE key >= ? AND key < ? ORDER BY key`, raw, prefixEnd(raw));
    return rows.map((r) => r.value);
  }

  // The event rides in the row and a trigger logs it: the question, its index entry and its event are one write.
  putQuestion(request: ElicitRequest, ttlMs: number, event: BrokerEvent): Promise<boolean> {
    return this.put(keys.question(request.id), { ...request, _event: event }, ttlMs);
  }

  /** The rows (a task's record) ride in the question's statement: both stored, or neither. */
  putQuestionWith(request: ElicitRequest, ttlMs: number, event: BrokerEvent, rows: StoreRow[]): Promise<boolean> {
    return this.put(keys.question(request.id), { ...request, _event: event }, ttlMs, null, rows);
  }

  async updateQuestion(request: ElicitRequest, ttlMs: number): Promise<boolean> {
    const row = await encodeRow(this.keyv, request, ttlMs);
    const written = await this.query(
      `UPDATE ${this.table} SET value = ? WHERE key = ? AND NOT EXISTS (SELECT 1 FROM ${this.table} a WHERE a.key = ? AND json_extract(a.value, '$.expires') >= ?) RETURNING key`,
      row,
      rawKey(this.keyv, keys.question(request.id)),
      rawKey(this.keyv, keys.answer(request.id)),
      Date.now(),
    );
    return written.length === 1;
  }

  async getQuestion(id: string): Promise<ElicitRequest | undefined> {
    return (await this.getEntry(id)).request;
  }

  async getEntry(id: string): Promise<{ request?: ElicitRequest | undefined; answer?: StoredAnswer | undefined }> {
    const question = rawKey(this.keyv, keys.question(id));
    const answer = rawKey(this.keyv, keys.answer(id));
    const found = await new Promise<Map<string, unknown>>((resolve, reject) =>
      this.reads.add({ keys: [question, answer], resolve, reject }),
    );
    const [request] = withoutEvent(decodeRowsSync<ElicitRequest>(this.keyv, [found.get(question)]));
    const [stored] = withoutEvent(decodeRowsSync<StoredAnswer>(this.keyv, [found.get(answer)]));
    return { ...(request ? { request } : {}), ...(stored ? { answer: stored } : {}) };
  }

  async claimAnswer(answer: StoredAnswer, ttlMs: number, event: BrokerEvent, options: ClaimOptions = {}): Promise<boolean> {
    const openQuestion = options.open ? rawKey(this.keyv, keys.question(answer.id)) : null;
    if (!(await this.put(keys.answer(answer.id), { ...answer, _event: event }, ttlMs, openQuestion))) return false;
    this.claims.tell(event);
    this.watchers.wake(answer.id, answer);
    return true;
  }

  async getAnswer(id: string): Promise<StoredAnswer | undefined> {
    return withoutEvent([await this.keyv.get<StoredAnswer>(keys.answer(id))])[0];
  }

  async getAnswers(ids: string[]): Promise<Array<StoredAnswer | undefined>> {
    return ids.length
      ? withoutEvent((await this.keyv.getMany<StoredAnswer>(ids.map(keys.answer))) as Array<StoredAnswer | undefined>)
      : [];
  }

  async listUnanswered(): Promise<ElicitRequest[]> {
    const pending = rawKey(this.keyv, 'p:');
    const answer = rawKey(this.keyv, 'a:');
    const t = this.table;
    const rows = await this.query(
      `SELECT p.value AS value FROM ${t} p WHERE p.key >= ? AND p.key < ?
       AND NOT EXISTS (SELECT 1 FROM ${t} a WHERE a.key = ? || substr(p.key, ?))`,
      pending,
      prefixEnd(pending),
      answer,
      pending.length + 1,
    );
    return withoutEvent(
      decodeRowsSync<ElicitRequest>(
        this.keyv,
        rows.map((r) => r.value),
      ),
    );
  }

  async listQuestions(): Promise<ElicitRequest[]> {
    return withoutEvent(decodeRowsSync<ElicitRequest>(this.keyv, await this.range('q:')));
  }

  async appendEvent(event: BrokerEvent, ttlMs: number): Promise<void> {
    const row = await encodeRow(this.keyv, event, ttlMs);
    await this.query(
      `INSERT INTO ${this.logTable} (namespace, at, expires, value) VALUES (?, ?, ?, ?)`,
      this.keyv.namespace ?? '',
      event.at,
      Date.now() + ttlMs,
      row,
    );
  }

  /** The log in write order; rows past their retention are deleted first. */
  async readEvents(since = 0): Promise<BrokerEvent[]> {
    await this.query(`DELETE FROM ${this.logTable} WHERE expires < ?`, Date.now());
    const rows = await this.query(
      `SELECT value FROM ${this.logTable} WHERE namespace = ? AND at >= ? ORDER BY seq`,
      this.keyv.namespace ?? '',
      since,
    );
    return decodeRowsSync<BrokerEvent>(
      this.keyv,
      rows.map((r) => r.value),
    );
  }

  watch(id: string, onAnswer: Watcher): () => void {
    const unwatch = this.watchers.add(id, onAnswer);
    this.poll();
    return unwatch;
  }

  watchRow(key: string, onWritten: () => void): () => void {
    const unwatch = this.rowWatchers.add(key, onWritten);
    this.poll();
    return unwatch;
  }

  onClaimed(listener: (event: BrokerEvent) => void): () => void {
    return this.claims.add(listener);
  }

  private poll(): void {
    if (this.pollTimer || this.closed) return;
    this.pollTimer = setTimeout(() => void this.tick(), this.pollIntervalMs);
    this.pollTimer.unref?.();
  }

  private async tick(): Promise<void> {
    this.pollTimer = undefined;
    // The version seen last is kept while nobody watches: a commit by another process since moves it (and
    // the next watch's tick reads); anything older a new waiter's own read saw, or (a question opened here)
    // cannot have answered a question not written yet. Forgetting it cost a read after every idle spell.
    if ((this.watchers.size === 0 && this.rowWatchers.size === 0) || this.closed) return;
    try {
      const [row] = await this.query('PRAGMA data_version');
      const version = Number(row?.data_version);
      if (version !== this.dataVersion) {
        this.dataVersion = version;
        const ids = this.watchers.ids();
        const rows = this.rowWatchers.ids();
        const [answers, found] = await Promise.all([
          this.getAnswers(ids),
          rows.length ? this.keyv.getMany(rows) : Promise.resolve([]),
        ]);
        answers.forEach((answer, i) => answer && this.watchers.wake(ids[i]!, answer));
        found.forEach((row, i) => row !== undefined && this.rowWatchers.wake(rows[i]!));
      }
    } catch {
      // A failed poll is retried on the next tick; the waiter's own reads report a store that is down.
    }
    this.poll();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.watchers.clear();
    this.rowWatchers.clear();
    await this.keyv.disconnect();
  }
}

/**
 * Runs one batch at a time; whatever arrives meanwhile waits and goes as the next batch (at most 200). The first
 * batch leaves after the current microtasks, so requests made together (a waiter's read and a respond's) share it.
 */
function createBatcher<T>(run: (batch: T[]) => Promise<void>): { add(item: T): void } {
  const queue: T[] = [];
  let running = false;
  const drain = async (): Promise<void> => {
    while (queue.length) await run(queue.splice(0, 200));
    running = false;
  };
  return {
    add(item) {
      queue.push(item);
      if (running) return;
      running = true;
      queueMicrotask(() => void drain());
    },
  };
}

/** Rows carry the event their write logged; readers get the record alone. */
function withoutEvent<T>(values: T[]): T[] {
  for (const value of values)
    if (value && typeof value === 'object' && '_event' in value) delete (value as { _event?: unknown })._event;
  return values;
}

const wrapOnce = onePerKeyv((keyv: Keyv, options: SqliteStoreOptions) => new SqliteStore(keyv, options.pollIntervalMs ?? 4));

/** Wraps a host's keyv over @keyv/sqlite (one wrapper per keyv instance). */
export function wrapSqliteKeyv(keyv: Keyv, options: SqliteStoreOptions = {}): BrokerStore {
  return wrapOnce(keyv, options);
}

/** Opens (creating if needed) the SQLite file at `path` in WAL mode, shared safely by many processes. */
export async function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<BrokerStore> {
  let connection: SqliteConnection | undefined;
  try {
    // Made 0600 before SQLite opens it: SQLite gives the WAL and its index the database file's own mode.
    makePrivateDir(dirname(path));
    ensurePrivateFile(
      path,
      SQLITE_COMPANIONS.map((suffix) => path + suffix),
    );
    connection = await connectSqlite(path, options.busyTimeoutMs ?? 10_000);
    const adapter = await openSqliteAdapter(connection, path);
    const keyv = new Keyv({ store: adapter, namespace: 'mcpx', throwOnErrors: true, serialize: serializeLikeKeyv });
    const query = connection.query;
    // WAL lets readers and the one writer proceed together; NORMAL sync is durable across process crashes.
    await connection.queryWhenFree('PRAGMA journal_mode = WAL');
    await query('PRAGMA synchronous = NORMAL');
    const store = wrapSqliteKeyv(keyv, options) as SqliteStore;
    // Until the setup transaction commits, anything else on this connection would run inside it.
    await store.ready;
    return store;
  } catch (error) {
    await connection?.close().catch(() => undefined);
    throw sqliteOpenError(path, error);
  }
}
