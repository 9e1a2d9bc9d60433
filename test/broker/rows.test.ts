import { Keyv } from 'keyv';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/broker/index.js';
import { encodeRow, encodeRowSync, encodeRowWithJson, serializeLikeKeyv } from '../../src/broker/stores/rows.js';

// encodeRow skips keyv's serializer when JSON.stringify gives the same text: these are the cases where it would not.
const values: Array<[string, unknown]> = [
  ['plain question', { id: 'elc-1', message: 'Proceed?', n: 1, ok: true, none: null, list: [1, 'a', { b: [] }] }],
  ['a string starting with ":"', { message: ':colon first' }],
  ['such a string in an array', { list: [':first', 'x', ':later'] }],
  ['such a string nested', { content: { deep: { v: '::two' } } }],
  ['a key starting with ":"', { ':key': 'v', other: { ':k2': 1 } }],
  ['a colon inside a string', { message: 'a ":" b', path: '[",":x]' }],
  ['escaped quotes and backslashes', { message: 'say "hi":\\', s: '\\":' }],
  ['a Buffer', { data: Buffer.from('hi') }],
  ['undefined fields and a Date', { gone: undefined, at: new Date(0), list: [undefined, 1] }],
];

describe('broker rows', () => {
  it.each(values)("encodes %s exactly as keyv's serializer does, and keyv reads it back", async (_name, value) => {
    const keyv = new Keyv();
    const row = await encodeRow(keyv, value, 60_000);
    const parsed = JSON.parse(row) as { expires: number };
    expect(row).toBe(await keyv.serializeData({ value, expires: parsed.expires }));
    expect(((await keyv.deserializeData(row)) as { value: unknown }).value).toEqual(
      await keyv
        .deserializeData((await keyv.serializeData({ value, expires: parsed.expires })) as string)
        .then((r) => (r as { value: unknown }).value),
    );
  });

  it.each(values)('gives the JSON of %s beside its row', async (_name, value) => {
    const keyv = new Keyv();
    const { row, json } = await encodeRowWithJson(keyv, value, 60_000);
    expect(json).toBe(JSON.stringify(value));
    expect(row).toBe(await keyv.serializeData({ value, expires: (JSON.parse(row) as { expires: number }).expires }));
  });

  it.each(values)("encodes %s synchronously exactly when that gives keyv's own text", async (_name, value) => {
    const keyv = new Keyv();
    const sync = encodeRowSync(keyv, value, 60_000);
    // Undefined exactly when the async encoder needs keyv's serializer (its row then has no tail to cut).
    expect(sync === undefined).toBe((await encodeRowWithJson(keyv, value, 60_000)).tail === undefined);
    if (!sync) return;
    expect(sync.json).toBe(JSON.stringify(value));
    expect(sync.row).toBe(await keyv.serializeData({ value, expires: (JSON.parse(sync.row) as { expires: number }).expires }));
    expect(sync.row.slice('{"value":'.length, -sync.tail)).toBe(sync.json);
  });

  it.each(values)("serializeLikeKeyv writes %s exactly as keyv's default serializer does", async (_name, value) => {
    const data = { value, expires: 1_700_000_000_000 };
    expect(serializeLikeKeyv(data)).toBe(await new Keyv().serializeData(data));
    expect(serializeLikeKeyv({ value })).toBe(await new Keyv().serializeData({ value, expires: undefined }));
  });

  it('the SQLite store writes through keyv as before, and encodes rows on its fast path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-rows-'));
    const store = await openSqliteStore(join(dir, 's.sqlite'));
    try {
      expect(store.keyv.serialize).toBe(serializeLikeKeyv);
      for (const [name, value] of values) {
        await store.keyv.set(`row:${name}`, value);
        const raw = (await store.keyv.store.get(`mcpx:row:${name}`)) as string;
        expect(raw).toBe(await new Keyv().serializeData({ value, expires: undefined }));
        expect(await store.keyv.get(`row:${name}`)).toEqual(await new Keyv().deserializeData(raw).then((r) => r?.value));
      }
      expect(encodeRowSync(store.keyv, { a: 1 }, 1_000)).toBeDefined();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("uses a host's own serializer when it set one", async () => {
    const keyv = new Keyv({
      serialize: (data) => `custom:${JSON.stringify(data)}`,
      deserialize: (text) => JSON.parse(text.slice(7)),
    });
    expect(await encodeRow(keyv, { a: 1 }, 1_000)).toMatch(/^custom:/);
    expect(encodeRowSync(keyv, { a: 1 }, 1_000)).toBeUndefined();
  });
});
