import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keyv } from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroker, defaultSqlitePath, openRedisStore, openSqliteStore, toBrokerStore } from '../../src/broker/index.js';
import { isMcpxError } from '../../src/errors.js';
import { startRedis } from '../helpers/redis.js';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'OK';
  } catch (error) {
    if (isMcpxError(error)) return error.code;
    throw error;
  }
}

const ask = {
  trace: 'cal-0000000000000001',
  server: 's',
  tool: 't',
  mode: 'form' as const,
  message: 'ok?',
  era: 'legacy' as const,
};

describe('broker stores', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-stores-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('puts the SQLite file in the state directory by default', () => {
    expect(defaultSqlitePath({ MCPX_STATE_DIR: '/x/state' })).toBe('/x/state/mcpx.sqlite');
  });

  it('says STORE_UNAVAILABLE when the SQLite file cannot be opened', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    const error = await openSqliteStore(join(blocker, 'mcpx.sqlite')).catch((e: unknown) => e);
    expect(isMcpxError(error, 'STORE_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/cannot open the SQLite store/);
  });

  it('says STORE_UNAVAILABLE when Redis is not there', async () => {
    const error = await openRedisStore('redis://127.0.0.1:1', { connectTimeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(isMcpxError(error, 'STORE_UNAVAILABLE')).toBe(true);
  });

  it('says STORE_UNAVAILABLE, never "not found", when Redis goes away mid-session', async () => {
    const redis = await startRedis();
    const store = await openRedisStore(redis.url, { connectTimeoutMs: 1_000 });
    const broker = createBroker({ store });
    const { id } = await broker.openRequest(ask);
    await redis.stop();
    expect(await codeOf(broker.get(id))).toBe('STORE_UNAVAILABLE');
    expect(await codeOf(broker.respond({ id, action: 'cancel', by: 'cli' }))).toBe('STORE_UNAVAILABLE');
    expect(await codeOf(broker.pending())).toBe('STORE_UNAVAILABLE');
    // A waiter started while Redis is down fails too, and closing does not hang on the reconnecting subscriber.
    expect(await codeOf(broker.awaitAnswer(id))).toBe('STORE_UNAVAILABLE');
    await broker.close();
    await store.close().catch(() => undefined);
  });

  it('refuses a keyv adapter it has no atomic step for', () => {
    const odd = new Keyv({
      store: { get: async () => undefined, set: async () => true, delete: async () => true, clear: async () => undefined },
    });
    expect(() => toBrokerStore(odd)).toThrow(expect.objectContaining({ code: 'STORE_UNSUPPORTED' }));
  });

  it("wraps a host's own keyv over @keyv/sqlite and turns throwOnErrors on", async () => {
    const { KeyvSqlite } = await import('@keyv/sqlite');
    const keyv = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${join(dir, 'host.sqlite')}` }), namespace: 'host' });
    const store = toBrokerStore(keyv);
    expect(store.kind).toBe('sqlite');
    expect(keyv.throwOnErrors).toBe(true);
    const broker = createBroker({ store });
    const { id } = await broker.openRequest(ask);
    await broker.respond({ id, action: 'decline', by: 'api' });
    expect(await keyv.get(`a:${id}`)).toMatchObject({ action: 'decline' });
    await broker.close();
    await store.close();
  });
});
