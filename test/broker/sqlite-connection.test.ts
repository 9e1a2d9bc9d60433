/**
 * The SQLite store's one connection with its kept prepared statements, on a real file: keyv's own reads see the
 * broker's writes, a statement that failed to prepare is prepared again once it can be, a kept statement follows
 * a schema change, and more statements than are kept all still run; another process's handle sees every write.
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
