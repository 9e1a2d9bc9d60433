/**
 * Plain JSON data written in QuickJS's own binary object format, which `QuickJSContext.decodeBinaryJSON` reads
 * in about half the time QuickJS's JSON.parse takes over the same data (the largest cost of a tool call's result
 * in the sandbox). Only what JSON.stringify would keep as is is written; anything else (toJSON, class instances,
 * Map, BigInt, cycles) returns undefined and goes through JSON text. The format is QuickJS's, not a standard:
 * test/runtime/binary-json.test.ts checks these bytes against QuickJS's own encoder.
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

const VERSION = 5;
const TAG = { null: 1, undefined: 2, false: 3, true: 4, int32: 5, float64: 6, string: 7, object: 8, array: 9 } as const;
/** QuickJS numbers atoms from here when it writes its atom table. */
const FIRST_ATOM = 1;
const MAX_INT_ATOM = 2 ** 31 - 1;
const CANONICAL_INDEX = /^(?:0|[1-9]\d{0,9})$/;
/** Deeper data goes through JSON text, which has its own limits and errors. */
const MAX_DEPTH = 200;
/** A writer's buffer larger than this after a call is dropped. */
const KEPT_BYTES = 1 << 20;

/** One growable byte buffer, reused from call to call (encoding is synchronous). */
class Writer {
  bytes = new Uint8Array(1024);
  length = 0;
  private readonly float = new Float64Array(1);
  private readonly floatBytes = new Uint8Array(this.float.buffer);

  reserve(count: number): void {
    if (this.length + count <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + count));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** Lets a buffer a large value grew go, so one huge result is not kept for the life of the process. */
  shrink(): void {
    if (this.bytes.length > KEPT_BYTES) this.bytes = new Uint8Array(1024);
  }

  byte(value: number): void {
    if (this.length === this.bytes.length) this.reserve(1);
    this.bytes[this.length++] = value;
  }

  leb128(value: number): void {
    this.reserve(5);
    let rest = value >>> 0;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.bytes[this.length++] = rest;
  }

  float64(value: number): void {
    this.reserve(8);
    this.float[0] = value; // the platform's byte order: little-endian wherever Node runs
    this.bytes.set(this.floatBytes, this.length);
    this.length += 8;
  }

  /** A string as QuickJS keeps it: one byte per character when all fit in Latin-1, else UTF-16 little-endian. */
  string(text: string): void {
    const count = text.length;
    const start = this.length;
    this.leb128(count << 1);
    this.reserve(count);
    const bytes = this.bytes;
    let at = this.length;
    for (let i = 0; i < count; i++) {
      const unit = text.charCodeAt(i);
      if (unit > 0xff) {
        this.length = start;
        this.wideString(text);
        return;
      }
      bytes[at++] = unit;
    }
    this.length = at;
  }

  private wideString(text: string): void {
    const count = text.length;
    this.leb128((count << 1) | 1);
    this.reserve(count * 2);
    const bytes = this.bytes;
    let at = this.length;
    for (let i = 0; i < count; i++) {
      const unit = text.charCodeAt(i);
      bytes[at++] = unit & 0xff;
      bytes[at++] = unit >> 8;
    }
    this.length = at;
  }
}

let encoding = false;
const body = new Writer();
const head = new Writer();
const atoms = new Map<string, number>();
const atomList: string[] = [];

/** Whether JSON.stringify leaves this property out of an object (and writes null for it in an array). */
function dropped(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function writeAtom(key: string): void {
  const first = key.charCodeAt(0);
  // A canonical array index is an integer atom, written in place of a table entry.
  if (first >= 48 && first <= 57 && CANONICAL_INDEX.test(key) && Number(key) <= MAX_INT_ATOM) {
    body.leb128((Number(key) << 1) | 1);
    return;
  }
  let index = atoms.get(key);
  if (index === undefined) {
    index = atomList.push(key) - 1;
    atoms.set(key, index);
  }
  body.leb128((FIRST_ATOM + index) << 1);
}

function write(item: unknown, depth: number): boolean {
  switch (typeof item) {
    case 'string':
      body.byte(TAG.string);
      body.string(item);
      return true;
    case 'boolean':
      body.byte(item ? TAG.true : TAG.false);
      return true;
    case 'number':
      if (item === (item | 0)) {
        body.byte(TAG.int32);
        body.leb128((item << 1) ^ (item >> 31)); // zigzag; -0 is written 0, as JSON has it
      } else if (Number.isFinite(item)) {
        body.byte(TAG.float64);
        body.float64(item);
      } else body.byte(TAG.null);
      return true;
    case 'object':
      if (item === null) {
        body.byte(TAG.null);
        return true;
      }
      return writeContainer(item, depth);
    default:
      return false;
  }
}

function writeContainer(item: object, depth: number): boolean {
  if (depth > MAX_DEPTH || typeof (item as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(item)) {
    body.byte(TAG.array);
    body.leb128(item.length);
    for (let i = 0; i < item.length; i++) {
      const element: unknown = item[i];
      if (dropped(element)) body.byte(TAG.null);
      else if (!write(element, depth + 1)) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(item);
  if (proto !== Object.prototype && proto !== null) return false;
  const record = item as Record<string, unknown>;
  const keys = Object.keys(record);
  let kept = 0;
  for (const key of keys) if (!dropped(record[key])) kept++;
  body.byte(TAG.object);
  body.leb128(kept);
  for (const key of keys) {
    const value = record[key];
    if (dropped(value)) continue;
    writeAtom(key);
    if (!write(value, depth + 1)) return false;
  }
  return true;
}

function copy(from: Writer, to: Uint8Array, at: number): void {
  const { bytes, length } = from;
  if (length > 256) to.set(bytes.subarray(0, length), at);
  else for (let i = 0; i < length; i++) to[at + i] = bytes[i]!;
}

/** `value` in QuickJS's binary format, or undefined when only JSON text says what JSON.stringify would make of it. */
export function encodeBinaryJson(value: unknown): Uint8Array | undefined {
  // The writers are shared: a getter that encodes again while this runs gets JSON text instead.
  if (encoding) return undefined;
  encoding = true;
  try {
    body.length = 0;
    head.length = 0;
    atoms.clear();
    atomList.length = 0;
    if (value === undefined) body.byte(TAG.undefined);
    else if (!write(value, 0)) return undefined;
    head.byte(VERSION);
    head.leb128(atomList.length);
    for (const key of atomList) head.string(key);
    const out = new Uint8Array(head.length + body.length);
    copy(head, out, 0);
    copy(body, out, head.length);
    return out;
  } finally {
    encoding = false;
    body.shrink();
    head.shrink();
  }
}

/** A tool call's reply made inside QuickJS: `isText` when it is JSON text for the script's JSON.parse. */
export interface Reply {
  handle: QuickJSHandle;
  isText: boolean;
}

/**
 * `value` made inside QuickJS from its binary form, else (see encodeBinaryJson, or QuickJS could not read it) as
 * JSON text ('' for undefined); undefined when the sandbox's heap cannot hold it. What JSON.stringify throws
 * (BigInt) is thrown.
 */
export function newReply(ctx: QuickJSContext, value: unknown): Reply | undefined {
  const bytes = encodeBinaryJson(value);
  const text = bytes ? undefined : (JSON.stringify(value) ?? '');
  try {
    if (bytes) {
      const buffer = ctx.newArrayBuffer(bytes.buffer);
      const handle = ctx.decodeBinaryJSON(buffer);
      buffer.dispose();
      // A failed read returns QuickJS's exception marker, the only value whose typeof is 'unknown'.
      if (ctx.typeof(handle) !== 'unknown') return { handle, isText: false };
      handle.dispose();
    }
    return { handle: ctx.newString(text ?? JSON.stringify(value)), isText: true };
  } catch {
    return undefined; // emscripten's malloc failed (or wrote past the capped memory): the reply does not fit
  }
}
