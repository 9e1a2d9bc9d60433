/**
 * Many hosts on the database most teams already run: keyv over @keyv/postgres (on `pg`). Every write is one atomic
 * statement: the answer is an `INSERT … ON CONFLICT DO UPDATE … WHERE expired` (the answer row is the claim) that also
 * drops the pending entry, logs the event and queues a `pg_notify`, delivered on commit. Waiters in every process
 * LISTEN on one connection: no polling. The pending index and the audit log (ordered by a sequence) are tables.
 */
import { createHash } from 'node:crypto';
import type { Pool, Client, ClientConfig } from 'pg';
import { Keyv } from 'keyv';
import { McpxError } from '../../../errors.js';
import type { BrokerEvent, BrokerStore, ClaimOptions, ElicitRequest, PutOptions, StoredAnswer } from '../../types.js';
import { decodeRowsSync, encodeRow, encodeRowWithJson, keys, rawKey } from '../rows.js';
import { createTables, tablesOf, type Query } from './schema.js';
import { ClaimListeners } from '../watchers.js';
import { AnswerListener } from './listen.js';
import { onePerKeyv } from '../per-keyv.js';
import { postgresAdapterOf } from '../keyv-adapters.js';
import { othersListenSql, presenceKey } from './presence.js';

export interface PostgresStoreOptions {
  /** Give up opening one connection after this long (ms): 3 000. A statement waiting for a free pooled connection waits on. */
  connectTimeoutMs?: number;
  /** Connections in this process's pool: 10. More statements at once queue for one. */
  poolSize?: number;
  namespace?: string;
}

// pg_notify's payload is limited to 8000 bytes: a longer answer is announced by id and re-read.
const MAX_PAYLOAD = 7_900;

/** Is this keyv's store the @keyv/postgres adapter? Duck-typed so the root entry never loads pg. */
export function isPostgresAdapter(store: unknown): boolean {
  const s = store as { query?: unknown; opts?: { dialect?: string } } | undefined;
  return typeof s?.query === 'function' && s.opts?.dialect === 'postgres';
}

class PostgresStore implements BrokerStore {
  readonly kind = 'postgres' as const;
  private readonly table: string;
  private readonly pendingTable: string;
  private readonly logTable: string;
  private readonly channel: string;
  /** The channel's presence lock key (presence.ts). */
  private readonly presence: number;
  private readonly namespace: string;
  private readonly answers: AnswerListener;
  private readonly claims = new ClaimListeners();
  /** Each statement's text, made once: a prepared statement is looked up by its text on every call. */
  private readonly statements: { putQuestion: string; respond: string; claim: string };
  readonly ready: Promise<void>;
  private closed = false;

  constructor(
    readonly keyv: Keyv,
    private readonly rawQuery: Query,
    connectListener: () => Promise<Client>,
    private readonly ownPool: Pool | undefined,
  ) {
    const tables = tablesOf(keyv);
    this.table = tables.table;
    this.pendingTable = tables.pendingTable;
    this.logTable = tables.logTable;
    this.namespace = tables.namespace;
    this.channel = tables.channel;
    this.presence = presenceKey(tables.channel);
    this.statements = this.buildStatements();
    this.ready = createTables(keyv, rawQuery, tables);
    this.ready.catch(() => undefined);
    this.answers = new AnswerListener(this.channel, this.ready, connectListener);
  }

  private async query(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>> {
    await this.ready;
    return this.rawQuery(sql, params);
  }

  /** The claim: writes the row unless a live one exists (an expired row is replaceable). */
  private claimSql(extra: string, select: string, guard = ''): string {
    return `WITH ${guard} won AS (
        INSERT INTO ${this.table} AS t (key, value) SELECT $1::text, $2::text ${guard ? 'WHERE EXISTS (SELECT 1 FROM open_question)' : ''}
        ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE (t.value::json->>'expires')::bigint < $3::bigint
        RETURNING key),
      logged AS (INSERT INTO ${this.logTable} (namespace, at, expires, value) SELECT $4::text, $5::bigint, $6::bigint, $7::text FROM won)
      ${extra}
      SELECT (SELECT count(*) FROM won)::int AS won ${select}`;
  }

  private buildStatements(): { putQuestion: string; respond: string; claim: string } {
    // Announced only when another connection listens: this process wakes its own waiters (presence.ts).
    const notified = `notified AS (SELECT pg_notify($9::text, $10::text) FROM won WHERE ${othersListenSql('$11')})`;
    const answered = (open: boolean): string =>
      open
        ? // A respond: the claim takes the question's pending row, deleting it (an abandon racing us waits on that row,
          // or we see its write and take nothing). A pending row never stands beside a live answer, so a claim that
          // loses to one has nothing to delete.
          this.claimSql(
            `, ${notified}`,
            ', (SELECT count(*) FROM notified) AS notified',
            `open_question AS (DELETE FROM ${this.pendingTable} WHERE namespace = $4::text AND id = $8::text AND expires >= $3::bigint
              AND (value::json->>'state') IS DISTINCT FROM 'abandoned' RETURNING id),`,
          )
        : this.claimSql(
            `, unindexed AS (DELETE FROM ${this.pendingTable} WHERE namespace = $4::text AND id = $8::text AND EXISTS (SELECT 1 FROM won)),
              ${notified}`,
            ', (SELECT count(*) FROM notified) AS notified',
          );
    return {
      putQuestion: this.claimSql(
        `, indexed AS (INSERT INTO ${this.pendingTable} (namespace, id, created_at, expires, value) SELECT $4::text, $8::text, $9::bigint, $6::bigint, $10::text FROM won
          ON CONFLICT (namespace, id) DO UPDATE SET created_at = excluded.created_at, expires = excluded.expires, value = excluded.value)`,
        '',
      ),
      respond: answered(true),
      claim: answered(false),
    };
  }

  async putQuestion(request: ElicitRequest, ttlMs: number, event: BrokerEvent): Promise<boolean> {
    const { row, json } = await encodeRowWithJson(this.keyv, request, ttlMs);
    const expires = Date.now() + ttlMs;
    const params = [
      rawKey(this.keyv, keys.question(request.id)),
      row,
      Date.now(),
      this.namespace,
      event.at,
      expires,
      await encodeRow(this.keyv, event, ttlMs),
      request.id,
      request.createdAt,
      json,
    ];
    const sql = this.statements.putQuestion;
    const [result] = await (this.answers.run(statementName(sql), sql, params) ?? this.query(sql, params));
    return Number(result?.won) === 1;
  }

  /**
   * The pending row is the lock an abandon and a respond share: an answer deletes it in its claim, so an abandon
   * that waited on it finds nothing to update, and a claim that waited on an abandon re-reads it as abandoned.
   */
  async updateQuestion(request: ElicitRequest, ttlMs: number): Promise<boolean> {
    const row = await encodeRow(this.keyv, request, ttlMs);
    const [result] = await this.query(
      `WITH indexed AS (UPDATE ${this.pendingTable} SET value = $3, expires = $4 WHERE namespace = $5 AND id = $6 RETURNING id),
         written AS (UPDATE ${this.table} SET value = $2 WHERE key = $1 AND EXISTS (SELECT 1 FROM indexed))
       SELECT count(*)::int AS written FROM indexed`,
      [
        rawKey(this.keyv, keys.question(request.id)),
        row,
        JSON.stringify(request),
        Date.now() + ttlMs,
        this.namespace,
        request.id,
      ],
    );
    return Number(result?.written) === 1;
  }

  async putIfAbsent(key: string, value: unknown, ttlMs: number, options: PutOptions = {}): Promise<boolean> {
    const insert = `INSERT INTO ${this.table} AS t (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE (t.value::json->>'expires')::bigint < $3::bigint
       RETURNING key`;
    const params = [rawKey(this.keyv, key), await encodeRow(this.keyv, value, ttlMs), Date.now()];
    if (!options.wake) return (await this.query(insert, params)).length === 1;
    // Announced on the answers' channel in the same statement, delivered only if it commits.
    const [result] = await this.query(
      `WITH won AS (${insert}), notified AS (SELECT pg_notify($4::text, $5::text) FROM won)
       SELECT (SELECT count(*) FROM won) AS won, (SELECT count(*) FROM notified) AS notified`,
      [...params, this.channel, JSON.stringify({ row: key })],
    );
    if (Number(result?.won) !== 1) return false;
    this.answers.wakeRow(key);
    return true;
  }

  async getQuestion(id: string): Promise<ElicitRequest | undefined> {
    return (await this.getEntry(id)).request;
  }

  async getEntry(id: string): Promise<{ request?: ElicitRequest | undefined; answer?: StoredAnswer | undefined }> {
    const question = rawKey(this.keyv, keys.question(id));
    const answer = rawKey(this.keyv, keys.answer(id));
    const rows = await this.query(`SELECT key, value FROM ${this.table} WHERE key = ANY($1)`, [[question, answer]]);
    const found = new Map(rows.map((r) => [r.key as string, r.value]));
    const [request] = decodeRowsSync<ElicitRequest>(this.keyv, [found.get(question)]);
    const [stored] = decodeRowsSync<StoredAnswer>(this.keyv, [found.get(answer)]);
    return { ...(request ? { request } : {}), ...(stored ? { answer: stored } : {}) };
  }

  async claimAnswer(answer: StoredAnswer, ttlMs: number, event: BrokerEvent, options: ClaimOptions = {}): Promise<boolean> {
    const { row, json: message } = await encodeRowWithJson(this.keyv, answer, ttlMs);
    const payload = Buffer.byteLength(message) <= MAX_PAYLOAD ? message : JSON.stringify({ id: answer.id });
    // A data-modifying CTE always runs; the notify is a SELECT, so the final SELECT must read it.
    const sql = options.open ? this.statements.respond : this.statements.claim;
    const params = [
      rawKey(this.keyv, keys.answer(answer.id)),
      row,
      Date.now(),
      this.namespace,
      event.at,
      Date.now() + ttlMs,
      await encodeRow(this.keyv, event, ttlMs),
      answer.id,
      this.channel,
      payload,
      this.presence,
    ];
    // On our LISTEN connection when it is idle: there, a claim with no other listener sends no NOTIFY.
    const [result] = await (this.answers.run(statementName(sql), sql, params) ?? this.query(sql, params));
    if (Number(result?.won) !== 1) return false;
    this.claims.tell(event);
    this.answers.wake(answer.id, answer);
    return true;
  }

  async getAnswer(id: string): Promise<StoredAnswer | undefined> {
    return (await this.getAnswers([id]))[0];
  }

  async getAnswers(ids: string[]): Promise<Array<StoredAnswer | undefined>> {
    if (ids.length === 0) return [];
    const wanted = ids.map((id) => rawKey(this.keyv, keys.answer(id)));
    const rows = await this.query(`SELECT key, value FROM ${this.table} WHERE key = ANY($1)`, [wanted]);
    const found = new Map(rows.map((r) => [r.key as string, r.value]));
    return wanted.map((key) => decodeRowsSync<StoredAnswer>(this.keyv, [found.get(key)])[0]);
  }

  async listUnanswered(): Promise<ElicitRequest[]> {
    const rows = await this.query(
      `SELECT value FROM ${this.pendingTable} WHERE namespace = $1 AND expires >= $2 ORDER BY created_at, id`,
      [this.namespace, Date.now()],
    );
    return rows.map((r) => JSON.parse(r.value as string) as ElicitRequest);
  }

  async listQuestions(): Promise<ElicitRequest[]> {
    const rows = await this.query(`SELECT value FROM ${this.table} WHERE starts_with(key, $1)`, [rawKey(this.keyv, 'q:')]);
    return decodeRowsSync<ElicitRequest>(
      this.keyv,
      rows.map((r) => r.value),
    );
  }

  async appendEvent(event: BrokerEvent, ttlMs: number): Promise<void> {
    await this.query(`INSERT INTO ${this.logTable} (namespace, at, expires, value) VALUES ($1, $2, $3, $4)`, [
      this.namespace,
      event.at,
      Date.now() + ttlMs,
      await encodeRow(this.keyv, event, ttlMs),
    ]);
  }

  /** The log in write order; rows past their retention are deleted first. */
  async readEvents(since = 0): Promise<BrokerEvent[]> {
    await this.query(`DELETE FROM ${this.logTable} WHERE expires < $1`, [Date.now()]);
    const rows = await this.query(`SELECT value FROM ${this.logTable} WHERE namespace = $1 AND at >= $2 ORDER BY seq`, [
      this.namespace,
      since,
    ]);
    return decodeRowsSync<BrokerEvent>(
      this.keyv,
      rows.map((r) => r.value),
    );
  }

  watch(id: string, onAnswer: (answer?: StoredAnswer) => void): () => void {
    return this.answers.watch(id, onAnswer);
  }

  watchRow(key: string, onWritten: () => void): () => void {
    return this.answers.watchRow(key, onWritten);
  }

  onClaimed(listener: (event: BrokerEvent) => void): () => void {
    return this.claims.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.answers.close();
    await this.ready.catch(() => undefined);
    if (this.ownPool) await this.ownPool.end();
    else await this.keyv.disconnect();
  }
}

/** The store over a keyv: `made` when the open path built it (with its pool), else one that LISTENs on its own connection. */
const wrapOnce = onePerKeyv((keyv: Keyv, made?: PostgresStore): PostgresStore => {
  if (made) return made;
  const adapter = postgresAdapterOf(keyv);
  const connect = async (): Promise<Client> => {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: adapter.opts.uri! });
    await client.connect();
    return client;
  };
  return new PostgresStore(keyv, (sql, params) => adapter.query(sql, params), connect, undefined);
});

/** Wraps a host's keyv over @keyv/postgres (one wrapper per keyv instance); waiters LISTEN on a connection of their own. */
export function wrapPostgresKeyv(keyv: Keyv): BrokerStore {
  return wrapOnce(keyv);
}

/** Connects to Postgres at `url` (postgres://user@host:port/db) with a pool of its own; STORE_UNAVAILABLE when it cannot. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<BrokerStore> {
  const [{ default: pg }, { KeyvPostgres }] = await Promise.all([import('pg'), import('@keyv/postgres')]);
  const connectionTimeoutMillis = options.connectTimeoutMs ?? 3_000;
  // The bound is on each connection's connect only: the pool's own connectionTimeoutMillis would also fail a
  // statement that waits for a free pooled connection, so a burst larger than the pool would fail, not queue.
  class BoundedClient extends pg.Client {
    constructor(config: ClientConfig = {}) {
      super({ ...config, connectionTimeoutMillis });
    }
  }
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, Client: BoundedClient });
  pool.on('error', () => {
    // An idle connection dropped; the pool replaces it and the next query reports a server that is down.
  });
  // A statement with parameters is prepared once per connection (named by its text's hash) and its plan kept:
  // parsing and planning the claim's CTE each time cost more than running it.
  const query: Query = async (sql, params) =>
    (await (params ? pool.query({ name: statementName(sql), text: sql, values: params }) : pool.query(sql))).rows as Array<
      Record<string, unknown>
    >;
  // @keyv/postgres keeps one module-wide pool (a second handle's close would end the first's): give it ours.
  // Its own CREATE TABLE waits until ours (under the schema lock) is done, so the two never race.
  let tablesCreated: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (tablesCreated = resolve));
  class PooledKeyvPostgres extends KeyvPostgres {
    override async connect(): Promise<(sql: string, values?: unknown[]) => Promise<unknown[]>> {
      return async (sql, values) => {
        await gate;
        return query(sql, values);
      };
    }
    override async disconnect(): Promise<void> {}
  }
  try {
    await query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new McpxError(
      'STORE_UNAVAILABLE',
      `cannot reach the Postgres store at ${redact(url)}: ${(error as Error).message}. Check that it is running and the URL is right.`,
      {
        cause: error,
        data: { store: 'postgres', url: redact(url) },
      },
    );
  }
  const adapter = new PooledKeyvPostgres({ uri: url });
  const keyv = new Keyv({ store: adapter, namespace: options.namespace ?? 'mcpx', throwOnErrors: true });
  keyv.on('error', () => {
    // Reported by the failing operation itself (throwOnErrors); this only keeps the emitter quiet.
  });
  const connectListener = async (): Promise<Client> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis });
    await client.connect();
    return client;
  };
  const store = wrapOnce(keyv, new PostgresStore(keyv, query, connectListener, pool));
  store.ready.then(tablesCreated, tablesCreated);
  try {
    await store.ready;
  } catch (error) {
    await store.close().catch(() => undefined);
    throw new McpxError(
      'STORE_UNAVAILABLE',
      `cannot create the mcpx tables in the Postgres store at ${redact(url)}: ${(error as Error).message}. The user needs CREATE on the schema.`,
      {
        cause: error,
        data: { store: 'postgres', url: redact(url) },
      },
    );
  }
  return store;
}

const statementNames = new Map<string, string>();
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) statementNames.set(sql, (name = `mcpx_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`));
  return name;
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}
