/**
 * What mcpx relies on in @keyv/sqlite, @keyv/postgres and pg, on real files and a real Postgres: the adapters' public
 * `opts` and `query` (src/broker/stores/keyv-adapters.ts), @keyv/sqlite's file format that mcpx's own adapter
 * (sqlite-adapter.ts) writes and reads, and a NOTIFY naming its sender by the pid `pg_backend_pid()` gives.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyvPostgres } from '@keyv/postgres';
import { KeyvSqlite } from '@keyv/sqlite';
import { Keyv } from 'keyv';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteAdapter } from '../../src/broker/stores/sqlite/adapter.js';
import { connectSqlite } from '../../src/broker/stores/sqlite/connection.js';
import { postgresAdapterOf, sqliteAdapterOf, sqliteTableOf } from '../../src/broker/stores/keyv-adapters.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-deps-keyv-'));

describe('@keyv/sqlite', () => {
  it('says it is sqlite, names its table and runs queries: what mcpx reads of a host adapter', async () => {
    const keyv = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${join(dir, 'host.sqlite')}` }) });
    expect(sqliteAdapterOf(keyv).opts.dialect).toBe('sqlite');
    expect(sqliteTableOf(keyv)).toBe('keyv');
    expect(await sqliteAdapterOf(keyv).query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await keyv.disconnect();
  });

  it("keeps the file format mcpx's own adapter writes and reads, both ways", async () => {
    const path = join(dir, 'shared.sqlite');
    const connection = await connectSqlite(path, 1_000);
    const ours = new Keyv({ store: await openSqliteAdapter(connection, path), namespace: 'mcpx' });
    await ours.set('from-mcpx', { n: 1 });
    const theirs = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${path}` }), namespace: 'mcpx' });
    expect(await theirs.get('from-mcpx')).toEqual({ n: 1 });
    await theirs.set('from-keyv', ['a']);
    expect(await ours.get('from-keyv')).toEqual(['a']);
    expect(await ours.has('from-keyv')).toBe(true);
    expect(await ours.getMany(['from-mcpx', 'none'])).toEqual([{ n: 1 }, undefined]);
    const keys: string[] = [];
    for await (const [key] of ours.iterator!(undefined)) keys.push(String(key));
    expect(keys.sort()).toEqual(['from-keyv', 'from-mcpx']);
    expect(await ours.delete('from-keyv')).toBe(true);
    expect(await ours.delete('from-keyv')).toBe(false);
    expect(await theirs.get('from-keyv')).toBeUndefined();
    await theirs.disconnect();
    await ours.disconnect();
  });
});

describe('@keyv/postgres and pg', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());

  it('names its uri, table and schema and runs queries: what mcpx reads of a host adapter', async () => {
    const keyv = new Keyv({ store: new KeyvPostgres({ uri: server.url, table: 'deps', schema: 'public' }) });
    const adapter = postgresAdapterOf(keyv);
    expect(adapter.opts).toMatchObject({ dialect: 'postgres', uri: server.url, table: 'deps', schema: 'public' });
    expect(await adapter.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await keyv.disconnect();
  });

  it('a notification carries the pid pg_backend_pid() gives its sender, and another sender has another', async () => {
    const listener = new pg.Client({ connectionString: server.url });
    const other = new pg.Client({ connectionString: server.url });
    await Promise.all([listener.connect(), other.connect()]);
    try {
      const pidOf = async (client: pg.Client): Promise<number> =>
        ((await client.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid;
      const [own, others] = [await pidOf(listener), await pidOf(other)];
      expect(own).not.toBe(others);
      const heard: Array<{ processId: number; payload?: string | undefined }> = [];
      listener.on('notification', (message) => heard.push({ processId: message.processId, payload: message.payload }));
      await listener.query('LISTEN deps_channel');
      await listener.query("NOTIFY deps_channel, 'own'");
      await other.query("NOTIFY deps_channel, 'other'");
      await expect.poll(() => heard.length).toBe(2);
      expect(heard).toEqual([
        { processId: own, payload: 'own' },
        { processId: others, payload: 'other' },
      ]);
    } finally {
      await Promise.all([listener.end(), other.end()]);
    }
  });
});
