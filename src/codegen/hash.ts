/**
 * The schema hash written into each generated file's header: an unchanged server is not regenerated, and
 * `mcpx gen --check` can tell a stale file from a fresh one without regenerating it.
 */
import { createHash } from 'node:crypto';

/** Bumped when the generator's output changes for the same schemas, so old files count as stale. */
export const GENERATOR_VERSION = 2;

const HASH_LINE = /^\/\/ mcpx-schema-hash: ([0-9a-f]{64})$/m;

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = stable((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** sha256 of the canonical JSON of `value` (object keys sorted), with the generator version mixed in. */
export function schemaHash(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(stable({ generator: GENERATOR_VERSION, value })))
    .digest('hex');
}

/** The hash line for a header. */
export function hashLine(hash: string): string {
  return `// mcpx-schema-hash: ${hash}`;
}

/** The hash recorded in a generated file's header, if it has one. */
export function readSchemaHash(text: string): string | undefined {
  return HASH_LINE.exec(text.slice(0, 2_000))?.[1];
}
