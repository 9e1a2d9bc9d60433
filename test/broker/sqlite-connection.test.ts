/**
 * The SQLite store's one connection with its kept prepared statements, on a real file: keyv's own reads see the
 * broker's writes, a statement that failed to prepare is prepared again once it can be, a kept statement follows
 * a schema change, and more statements than are kept all still run; another process's handle sees every write; a
 * close lets a running query finish and refuses the ones that come while it closes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBroker, openSqliteStore } from '../../src/broker/index.js';

type Query = (sql: string, ...params: unknown[]) => Promise<Array<Record<string, unknown>>>;
const queryOf = (store: { keyv: { store: unknown } }): Query => (store.keyv.store as { query: Query }).query;

describe('the SQLite store connection', () => {
  it('keeps prepared statements without keeping a failed one or a stale one', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'mcpx-sqlite-conn-')), 'mcpx.sqlite');
    const store = await openSqliteStore(path);
    const query = queryOf(store);
    try {
      expect((store.keyv.store as { opts: { uri: string } }).opts.uri).toBe(`sqlite://${path}`);
      await expect(query('SELECT n FROM extra')).rejects.toThrow(/no such table/);
      await query('CREATE TABLE extra (n INTEGER)');
      await query('INSERT INTO extra (n) VALUES (?)', 1);
      expect(await query('SELECT n FROM extra')).toEqual([{ n: 1 }]);
      // One array is the whole parameter list, as with sqlite3's db.all.
      expect(await query('SELECT ? AS a, ? AS b', [1, 2])).toEqual([{ a: 1, b: 2 }]);
      // The kept SELECT * is compiled for one column; after ALTER it reads two.
      expect(await query('SELECT * FROM extra')).toEqual([{ n: 1 }]);
      await query('ALTER TABLE extra ADD COLUMN m INTEGER DEFAULT 7');
      expect(await query('SELECT * FROM extra')).toEqual([{ n: 1, m: 7 }]);
      // More distinct statements than are kept, some in flight together while older ones are finalized.
      const many = await Promise.all(
        Array.from({ length: 400 }, (_, i) => query(`SELECT ${i} AS i, n FROM extra WHERE n = ?`, 1)),
      );
      expect(many.map((rows) => rows[0]?.i)).toEqual(Array.from({ length: 400 }, (_, i) => i));
    } finally {
      await store.close();
    }
  });

  it('closes while queries still come: the running one finishes, later ones are refused', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'mcpx-sqlite-conn-')), 'mcpx.sqlite');
    for (let round = 0; round < 5; round++) {
      const store = await openSqliteStore(path);
      const query = queryOf(store);
      const running = query('SELECT ? AS n', round);
      let closed = false;
      const closing = store.close().finally(() => (closed = true));
      // As a call's late clean-up reads while the store closes, each a statement not kept yet: one prepared after
      // the close finalized the kept ones made sqlite3_close fail (SQLITE_BUSY) and left the file open.
      const late: Array<Promise<string>> = [];
      while (!closed && late.length < 50) {
        late.push(
          query(`SELECT ${late.length} AS late`).then(
            () => 'ran',
            (error: Error) => error.message,
          ),
        );
        await new Promise((resolve) => setImmediate(resolve));
      }
      await closing;
      expect(await running).toEqual([{ n: round }]);
      expect(new Set(await Promise.all(late))).toEqual(new Set(['SQLITE_MISUSE: Database is closed']));
    }
  });

  it('serves keyv reads and a second handle from the same file', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'mcpx-sqlite-conn-')), 'mcpx.sqlite');
    const [one, two] = [await openSqliteStore(path), await openSqliteStore(path)];
    const broker = createBroker({ store: one, allowAnySession: true });
    const other = createBroker({ store: two, allowAnySession: true });
    try {
      const { id } = await broker.openRequest({
        trace: 'cal-0000000000000001',
        server: 'fx',
        tool: 'ask',
        mode: 'form',
        message: 'Proceed?',
        era: 'legacy',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });
      const woke = other.awaitAnswer(id);
      await broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
      expect((await woke).content).toEqual({ ok: true });
      expect(await one.keyv.get(`a:${id}`)).toMatchObject({ id, action: 'accept' });
      expect(await two.keyv.get(`q:${id}`)).toMatchObject({ id, state: 'pending' });
    } finally {
      await broker.close();
      await other.close();
      await one.close();
      await two.close();
    }
  });
});
