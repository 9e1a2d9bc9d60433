/**
 * A question's hooks may give rows to store with it (serve: the asking call's task record). SQLite writes them in
 * the question's own statement; other stores write them first. Either way they are readable once the open returns,
 * replace what was there, and are written even when the question's id already exists.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createBroker,
  openMemoryStore,
  openSqliteStore,
  type BrokerStore,
  type OpenRequestInput,
} from '../../src/broker/index.js';

const ask: OpenRequestInput = {
  trace: 'cal-0000000000000d01',
  server: 's',
  tool: 't',
  mode: 'form',
  message: 'Proceed?',
  era: 'modern',
};

describe.each([
  ['sqlite', (dir: string) => openSqliteStore(join(dir, 'rows.sqlite'))],
  ['memory', async () => openMemoryStore()],
] as Array<[string, (dir: string) => Promise<BrokerStore>]>)('rows written with a question (%s)', (kind, open) => {
  it('are stored by the time the open returns, replacing what was there, even for an id that exists', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-question-rows-'));
    const store = await open(dir);
    const broker = createBroker({ store, allowAnySession: true });
    const statements: string[] = [];
    try {
      await store.keyv.set('task:t1', { state: 'old' }, 60_000);
      let round = 0;
      broker.onOpen(() => ({ rows: [{ key: 'task:t1', value: { state: `round ${++round}` }, ttlMs: 60_000 }] }));
      const write = store.putQuestionWith?.bind(store);
      if (kind === 'sqlite') expect(write).toBeDefined();
      if (write)
        store.putQuestionWith = (...args) => {
          statements.push('putQuestionWith');
          return write(...args);
        };

      const first = await broker.openRequest({ ...ask, id: 'elc-00000000000000d1' });
      expect(await store.keyv.get('task:t1')).toEqual({ state: 'round 1' });
      expect(await broker.get(first.id)).toMatchObject({ state: 'pending' });

      // The same id again: the first question stands, the rows are written all the same.
      await broker.openRequest({ ...ask, id: 'elc-00000000000000d1', message: 'Again?' });
      expect(await store.keyv.get('task:t1')).toEqual({ state: 'round 2' });
      expect((await broker.get(first.id))?.message).toBe('Proceed?');
      expect(statements).toEqual(kind === 'sqlite' ? ['putQuestionWith', 'putQuestionWith'] : []);
    } finally {
      await broker.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
