/**
 * The keyv store adapter the SQLite store runs on: @keyv/sqlite 4's table and statements, word for word, over mcpx's
 * own connection (sqlite-connection.ts), so a file either writes the other reads. Ours because @keyv/sqlite always
 * opens a connection of its own (its `connect` option is overwritten), and the store needs the one it prepared.
 */
import { EventEmitter } from 'node:events';
import type { KeyvStoreAdapter, StoredData } from 'keyv';
import type { SqliteConnection } from './connection.js';

/** @keyv/sqlite's defaults: the table every mcpx SQLite file has. */
const TABLE = 'keyv';
const KEY_SIZE = 255;
/** Rows per page of `iterator()`, as @keyv/sqlite reads them. */
const ITERATION_LIMIT = 10;

type Row = { key: string; value: string };

export class SqliteKeyvAdapter extends EventEmitter implements KeyvStoreAdapter {
  readonly ttlSupport = false;
  /** What @keyv/sqlite's adapter says of itself: keyv reads `dialect` to iterate, mcpx reads `table`. */
  readonly opts: { dialect: 'sqlite'; uri: string; db: string; table: string; keySize: number };
  namespace?: string;
  readonly query: SqliteConnection['query'];
  readonly close: () => Promise<void>;

  constructor(connection: SqliteConnection, path: string) {
    super();
    this.opts = { dialect: 'sqlite', uri: `sqlite://${path}`, db: path, table: TABLE, keySize: KEY_SIZE };
    this.query = connection.query;
    this.close = connection.close;
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const [row] = (await this.query(`SELECT * FROM ${TABLE} WHERE key = ?`, key)) as Row[];
    return row?.value as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    const rows = (await this.query(
      `SELECT * FROM ${TABLE} WHERE key IN (SELECT value FROM json_each(?))`,
      JSON.stringify(keys),
    )) as Row[];
    return keys.map((key) => rows.find((row) => row.key === key)?.value as StoredData<Value | undefined>);
  }

  async set(key: string, value: unknown): Promise<unknown> {
    return this.query(
      `INSERT INTO ${TABLE} (key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value;`,
      key,
      value,
    );
  }

  async delete(key: string): Promise<boolean> {
    if (!(await this.has(key))) return false;
    await this.query(`DELETE FROM ${TABLE} WHERE key = ?`, key);
    return true;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    if ((await this.getMany(keys)).every((value) => value === undefined)) return false;
    await this.query(`DELETE FROM ${TABLE} WHERE key IN (SELECT value FROM json_each(?))`, JSON.stringify(keys));
    return true;
  }

  async clear(): Promise<void> {
    await this.query(`DELETE FROM ${TABLE} WHERE key LIKE ?`, this.namespace ? `${this.namespace}:%` : '%');
  }

  async *iterator<Value>(namespace?: string): AsyncGenerator<Array<string | Awaited<Value> | undefined>, void> {
    const pattern = `${namespace ? `${namespace}:` : ''}%`;
    for (let offset = 0; ;) {
      const rows = (await this.query(`SELECT * FROM ${TABLE} WHERE key LIKE ? LIMIT ? OFFSET ?`, [
        pattern,
        ITERATION_LIMIT,
        offset,
      ])) as Row[];
      if (rows.length === 0) return;
      for (const row of rows) {
        offset += 1;
        yield [row.key, row.value as Awaited<Value>];
      }
    }
  }

  async has(key: string): Promise<boolean> {
    const [row] = await this.query(`SELECT EXISTS ( SELECT * FROM ${TABLE} WHERE key = ? ) AS found`, key);
    return row?.found === 1;
  }

  async disconnect(): Promise<void> {
    await this.close();
  }
}

/** The adapter for the SQLite file at `path` on `connection`, once @keyv/sqlite's table exists in it. */
export async function openSqliteAdapter(connection: SqliteConnection, path: string): Promise<SqliteKeyvAdapter> {
  await connection.query(`CREATE TABLE IF NOT EXISTS ${TABLE}(key VARCHAR(${KEY_SIZE}) PRIMARY KEY, value TEXT )`);
  return new SqliteKeyvAdapter(connection, path);
}
