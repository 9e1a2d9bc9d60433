/**
 * The schema hash written into each generated file's header: an unchanged server is not regenerated, and
 * `mcpx gen --check` can tell a stale file from a fresh one without regenerating it.
 */
import { createHash, type Hash } from 'node:crypto';

/** Bumped when the generator's output changes for the same schemas, so old files count as stale. */
export const GENERATOR_VERSION = 2;

const HASH_LINE = /^\/\/ mcpx-schema-hash: ([0-9a-f]{64})$/m;

/** Canonical JSON (object keys sorted) fed straight into the hash, without building a sorted copy first. */
function feed(hash: Hash, value: unknown): void {
  if (Array.isArray(value)) {
    hash.update('[');
    value.forEach((v, i) => {
      if (i > 0) hash.update(',');
      feed(hash, v === undefined ? null : v);
    });
    hash.update(']');
    return;
  }
  if (value !== null && typeof value === 'object') {
    hash.update('{');
    let first = true;
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v === undefined) continue;
      hash.update(`${first ? '' : ','}${JSON.stringify(k)}:`);
      first = false;
      feed(hash, v);
    }
    hash.update('}');
    return;
  }
  hash.update(JSON.stringify(value) ?? 'null');
}

/** sha256 of the canonical JSON of `value` (object keys sorted), with the generator version mixed in. */
export function schemaHash(value: unknown): string {
  const hash = createHash('sha256');
  feed(hash, { generator: GENERATOR_VERSION, value });
  return hash.digest('hex');
}

/** The hash line for a header. */
export function hashLine(hash: string): string {
  return `// mcpx-schema-hash: ${hash}`;
}

/** The hash recorded in a generated file's header, if it has one. */
export function readSchemaHash(text: string): string | undefined {
  return HASH_LINE.exec(text.slice(0, 2_000))?.[1];
}
