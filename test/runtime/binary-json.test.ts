import { newQuickJSWASMModuleFromVariant, type QuickJSContext } from 'quickjs-emscripten-core';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeBinaryJson } from '../../src/runtime/binary-json.js';

// QuickJS's own encoder is the reference: our bytes must be the ones it writes for the same data, as JSON.parse
// in QuickJS builds it from JSON.stringify's text (what a script received before binary JSON).
let ctx: QuickJSContext;
beforeAll(async () => {
  ctx = (await newQuickJSWASMModuleFromVariant(variant)).newRuntime().newContext();
});

function quickjsBytes(value: unknown): string {
  const text = ctx.newString(JSON.stringify(value));
  const parse = ctx.unwrapResult(ctx.evalCode('(t) => JSON.parse(t)'));
  const parsed = ctx.unwrapResult(ctx.callFunction(parse, ctx.undefined, text));
  const encoded = ctx.encodeBinaryJSON(parsed);
  const bytes = Buffer.from(ctx.getArrayBuffer(encoded).value).toString('hex');
  for (const handle of [text, parse, parsed, encoded]) handle.dispose();
  return bytes;
}

function decoded(bytes: Uint8Array): unknown {
  const buffer = ctx.newArrayBuffer(bytes.slice().buffer);
  const value = ctx.decodeBinaryJSON(buffer);
  const dumped: unknown = ctx.dump(value);
  buffer.dispose();
  value.dispose();
  return dumped;
}

const samples: Record<string, unknown> = {
  'null, booleans': [null, true, false],
  'integers and floats': [
    0,
    1,
    -1,
    63,
    64,
    -65,
    2 ** 31 - 1,
    -(2 ** 31),
    2 ** 31,
    1.5,
    -2.25,
    1e300,
    5e-324,
    Number.MAX_SAFE_INTEGER,
  ],
  'Latin-1, BMP, astral and lone surrogates': ['', 'ab', 'é', 'ÿ', 'Ā', '中文', '🙂', '\ud800', 'x\u0000y', 'a'.repeat(300)],
  'nested objects and arrays': { content: [{ type: 'text', text: '{"a":1}' }], structured: { a: { b: { c: [1, [2, [3]]] } } } },
  'repeated, wide and odd keys': { a: 1, b: { a: 2, 中: 3 }, '': 4, 'x y': 5, __proto__x: 6, constructor: 7, length: 8 },
  'index-like keys': {
    '0': 1,
    '1': 2,
    '2147483646': 3,
    '2147483647': 4,
    '2147483648': 5,
    '4294967295': 6,
    '01': 7,
    '-1': 8,
    '1.5': 9,
  },
  'a "__proto__" key, as JSON.parse makes it': JSON.parse('{"__proto__":{"polluted":1},"a":[{"__proto__":null}]}'),
  'a long array': Array.from({ length: 200 }, (_, i) => i * 3),
  'a large object': Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`key${i}`, `value ${i}`])),
  'an MCP result': {
    content: [{ type: 'text', text: '{"tool":"no_ask","era":"modern","received":{},"text":"hello"}' }],
    structuredContent: { tool: 'no_ask', era: 'modern', received: {}, text: 'hello' },
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mcpx-fixture-dual-era', version: '1.0.0' } },
  },
};

describe('binary JSON for the sandbox', () => {
  for (const [name, value] of Object.entries(samples)) {
    it(`writes what QuickJS writes, and reads back as JSON would: ${name}`, () => {
      const bytes = encodeBinaryJson(value);
      expect(bytes).toBeDefined();
      expect(Buffer.from(bytes!).toString('hex')).toBe(quickjsBytes(value));
      expect(decoded(bytes!)).toEqual(JSON.parse(JSON.stringify(value)));
    });
  }

  it('keeps what JSON keeps: drops undefined and function properties, nulls them in arrays, -0 is 0, NaN is null', () => {
    const value = { a: undefined, b: () => 1, c: [undefined, () => 1, NaN, -Infinity, -0], d: -0, e: 1 };
    const bytes = encodeBinaryJson(value);
    expect(Buffer.from(bytes!).toString('hex')).toBe(quickjsBytes(value));
    expect(decoded(bytes!)).toEqual({ c: [null, null, null, null, 0], d: 0, e: 1 });
    expect(Object.is((decoded(bytes!) as { d: number }).d, 0)).toBe(true);
  });

  it('stays right when a getter encodes another value while a value is being encoded', () => {
    let inner: Uint8Array | undefined = new Uint8Array();
    const value = {
      a: 1,
      get b() {
        inner = encodeBinaryJson({ other: [1, 2] });
        return 'b';
      },
      c: [true],
    };
    const bytes = encodeBinaryJson(value);
    expect(inner).toBeUndefined();
    expect(Buffer.from(bytes!).toString('hex')).toBe(quickjsBytes({ a: 1, b: 'b', c: [true] }));
    expect(Buffer.from(encodeBinaryJson({ other: [1, 2] })!).toString('hex')).toBe(quickjsBytes({ other: [1, 2] }));
  });

  it('leaves to JSON text what only JSON.stringify can say (toJSON, instances, Map, BigInt, cycles, deep data)', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    let deep: unknown = 1;
    for (let i = 0; i < 300; i++) deep = [deep];
    for (const value of [new Date(0), { at: new Date(0) }, new (class Point {})(), new Map(), [1n], 1n, cyclic, deep, () => 1]) {
      expect(encodeBinaryJson(value)).toBeUndefined();
    }
    expect(decoded(encodeBinaryJson(undefined)!)).toBeUndefined();
  });
});
