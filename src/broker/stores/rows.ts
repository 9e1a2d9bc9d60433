/** keyv's own row format, so rows written by our atomic steps read back through ordinary `keyv.get`. */
import { Keyv, type DeserializedData } from 'keyv';

/** The key as the adapter stores it: keyv's `namespace:` prefix, then the adapter's own (Redis adds `ns::`). */
export function rawKey(keyv: Keyv, key: string): string {
  const prefixed = keyv.useKeyPrefix && keyv.namespace ? `${keyv.namespace}:${key}` : key;
  const store = keyv.store as { createKeyPrefix?: (key: string, namespace?: string) => string; namespace?: string };
  return typeof store.createKeyPrefix === 'function' ? store.createKeyPrefix(prefixed, store.namespace) : prefixed;
}

let keyvDefaultSerialize: Keyv['serialize'] | undefined;
const defaultSerialize = (): NonNullable<Keyv['serialize']> => (keyvDefaultSerialize ??= new Keyv().serialize)!;

/**
 * A row as keyv writes it: its serializer's string, or the `{ value, expires }` object when it has none. With
 * keyv's default serializer, JSON.stringify gives the same text (its recursion in JS cost more than the claim's
 * own encoding) unless a string starts with ':' (which keyv escapes: `":` right after `:`, `,` or `[`) or a
 * Buffer is inside; those go through keyv's serializer.
 */
export async function encodeRow(keyv: Keyv, value: unknown, ttlMs: number | undefined): Promise<string> {
  return (await encodeRowWithJson(keyv, value, ttlMs)).row;
}

/**
 * The row, and the value's own JSON beside it (the index entry, the published answer) from one stringify. `tail`,
 * when set, says the row is `{"value":` + json + `tail` more characters (ASCII): a store script can cut the JSON
 * out of the row instead of being sent it twice.
 */
export async function encodeRowWithJson(
  keyv: Keyv,
  value: unknown,
  ttlMs: number | undefined,
): Promise<{ row: string; json: string; tail?: number }> {
  const json = JSON.stringify(value);
  return plainRow(keyv, json, ttlMs) ?? { row: (await keyv.serializeData({ value, expires: expiresAt(ttlMs) })) as string, json };
}

/** No TTL: kept until overwritten, as keyv.set without one. */
const expiresAt = (ttlMs: number | undefined): number | undefined => (ttlMs === undefined ? undefined : Date.now() + ttlMs);

/**
 * encodeRowWithJson without a promise when keyv's own serializer is not needed (undefined when it is): a hot
 * write then costs no extra turn of the microtask queue before its command is sent.
 */
export function encodeRowSync(
  keyv: Keyv,
  value: unknown,
  ttlMs: number,
): { row: string; json: string; tail: number } | undefined {
  return plainRow(keyv, JSON.stringify(value), ttlMs);
}

/** Whether keyv's default serializer writes exactly this JSON.stringify text (see encodeRow). */
const sameAsKeyv = (json: string): boolean => !/[:,[]":/.test(json) && !json.includes('"type":"Buffer"');

/**
 * keyv's default serializer, through JSON.stringify wherever that is the same text: keyv's recursion in JS cost
 * several times as much on a task's record (written twice per question round). For the keyv of a store mcpx opens.
 */
export function serializeLikeKeyv<Value>(data: DeserializedData<Value>): string {
  const json = JSON.stringify(data) as string | undefined;
  return json !== undefined && sameAsKeyv(json) ? json : (defaultSerialize()(data) as string);
}

function plainRow(keyv: Keyv, json: string, ttlMs: number | undefined): { row: string; json: string; tail: number } | undefined {
  const keyvText = keyv.serialize === defaultSerialize() || keyv.serialize === serializeLikeKeyv;
  // JSON.stringify({ value, expires }) is exactly this text.
  if (!keyvText || keyv.compression || !sameAsKeyv(json)) return undefined;
  const expires = expiresAt(ttlMs);
  const end = expires === undefined ? '}' : `,"expires":${expires}}`;
  return { row: `{"value":${json}${end}`, json, tail: end.length };
}

/** Parses a stored row with keyv's own deserializer; undefined when it is missing or past its keyv expiry. */
export async function decodeRow<T>(keyv: Keyv, raw: unknown): Promise<T | undefined> {
  if (raw === undefined || raw === null) return undefined;
  const row = (typeof raw === 'string' ? await keyv.deserializeData(raw) : raw) as
    { value?: T; expires?: number | null } | undefined;
  if (!row || (typeof row.expires === 'number' && row.expires < Date.now())) return undefined;
  return row.value;
}

export const keys = {
  question: (id: string) => `q:${id}`,
  answer: (id: string) => `a:${id}`,
};

/**
 * Parses many rows fast: plain JSON.parse unless a row holds a string keyv escaped (a leading ':' or a Buffer),
 * which goes through keyv's own deserializer. Drops rows past their keyv expiry.
 */
export function decodeRowsSync<T>(keyv: Keyv, raws: unknown[]): T[] {
  const now = Date.now();
  const deserialize = keyv.deserialize as unknown as (raw: string) => { value?: T; expires?: number | null };
  const out: T[] = [];
  for (const raw of raws) {
    if (typeof raw !== 'string') continue;
    const row =
      raw.includes('"::') || raw.includes('":base64:')
        ? deserialize(raw)
        : (JSON.parse(raw) as { value?: T; expires?: number | null });
    if (!row || (typeof row.expires === 'number' && row.expires < now) || row.value === undefined) continue;
    out.push(row.value);
  }
  return out;
}

/** The exclusive upper bound of a key range holding every key that starts with `prefix`. */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
