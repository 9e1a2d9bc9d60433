/**
 * The schema hash written into each generated file's header: an unchanged server is not regenerated, and
 * `mcpx gen --check` can tell a stale file from a fresh one without regenerating it.
 */
import { createHash, type Hash } from 'node:crypto';

/** Bumped when the generator's output changes for the same schemas, so old files count as stale. */
export const GENERATOR_VERSION = 2;

const HASH_LINE = /^\/\/ mcpx-schema-hash: ([0-9a-f]{64})$/m;

/**
 * Canonical JSON (object keys sorted) fed straight into the hash, without building a sorted copy first. Iterative:
 * a server's schema may nest deeper than the call stack.
 */
function feed(hash: Hash, root: unknown): void {
  // Work items: a value to write, or literal text (a separator or a closing bracket).
  const stack: Array<{ text: string } | { value: unknown }> = [{ value: root }];
  while (stack.length > 0) {
    const item = stack.pop() as { text: string } | { value: unknown };
    if ('text' in item) {
      hash.update(item.text);
      continue;
    }
    const value = item.value;
    if (Array.isArray(value)) {
      hash.update('[');
      stack.push({ text: ']' });
      for (let i = value.length - 1; i >= 0; i -= 1) {
        stack.push({ value: value[i] === undefined ? null : value[i] });
        if (i > 0) stack.push({ text: ',' });
      }
    } else if (value !== null && typeof value === 'object') {
      hash.update('{');
      stack.push({ text: '}' });
      const keys = Object.keys(value)
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .sort();
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const k = keys[i] as string;
        stack.push({ value: (value as Record<string, unknown>)[k] });
        stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(k)}:` });
      }
    } else {
      hash.update(JSON.stringify(value) ?? 'null');
    }
  }
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
