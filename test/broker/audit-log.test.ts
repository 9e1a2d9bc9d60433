import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyvSqlite } from '@keyv/sqlite';
import { Keyv } from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroker, openSqliteStore } from '../../src/broker/index.js';

describe('the SQLite audit log', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-audit-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the events a v1 file logged in the keyv table, in their order, after the upgrade', async () => {
    const path = join(dir, 'v1.sqlite');
    // v1 wrote log rows into the keyv table as `log:<time>:<pid>:<seq>`.
    const old = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${path}` }), namespace: 'mcpx' });
    const base = { elicit: 'elc-00000000000000aa', trace: 'cal-00000000000000aa', session: 's1', pid: 7 };
    await old.set('log:001800000000000:7:1', { ...base, kind: 'elicit.open', at: 1_800_000_000_000 }, 60_000);
    await old.set('log:001800000000001:7:2', { ...base, kind: 'elicit.answered', at: 1_800_000_000_001 }, 60_000);
    await old.disconnect();

    const store = await openSqliteStore(path);
    const broker = createBroker({ store, session: 's1' });
    await broker.recordResumed({ elicit: base.elicit, trace: 'cal-00000000000000bb', parent: base.trace });
    expect((await broker.audit({ trace: base.trace })).map((e) => e.kind)).toEqual([
      'elicit.open',
      'elicit.answered',
      'elicit.resumed',
    ]);
    expect(await store.keyv.get('log:001800000000000:7:1')).toBeUndefined();
    await broker.close();
    await store.close();
  });
});
