/**
 * The schema hash written into each generated file's header: an unchanged server is not regenerated, and
 * `mcpx gen --check` can tell a stale file from a fresh one without regenerating it.
 */
import { createHash } from 'node:crypto';

/** Bumped when the generator's output changes for the same schemas, so old files count as stale. */
export const GENERATOR_VERSION = 2;

const HASH_LINE = /^\/\/ mcpx-schema-hash: ([0-9a-f]{64})$/m;

/** Canonical JSON (object keys sorted), written without building a sorted copy first. */
function write(value: unknown, out: string[], depth: number): void {
  if (depth > 200) {
    // Deeper than any sane schema: finish iteratively, since a server's schema may nest past the call stack.
    out.push(canonicalDeep(value));
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((v, i) => {
      if (i > 0) out.push(',');
      write(v === undefined ? null : v, out, depth + 1);
    });
    out.push(']');
  } else if (value !== null && typeof value === 'object') {
    out.push('{');
    let first = true;
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v === undefined) continue;
      out.push(first ? `${JSON.stringify(k)}:` : `,${JSON.stringify(k)}:`);
      first = false;
      write(v, out, depth + 1);
    }
    out.push('}');
  } else {
    out.push(JSON.stringify(value) ?? 'null');
  }
}

/** The same canonical JSON with an explicit stack instead of recursion. */
function canonicalDeep(root: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or literal text (a separator or a closing bracket).
  const stack: Array<{ text: string } | { value: unknown }> = [{ value: root }];
  while (stack.length > 0) {
    const item = stack.pop() as { text: string } | { value: unknown };
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const value = item.value;
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ text: ']' });
      for (let i = value.length - 1; i >= 0; i -= 1) {
        stack.push({ value: value[i] === undefined ? null : value[i] });
        if (i > 0) stack.push({ text: ',' });
      }
    } else if (value !== null && typeof value === 'object') {
      out.push('{');
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
      out.push(JSON.stringify(value) ?? 'null');
    }
  }
  return out.join('');
}

function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out, 0);
  return out.join('');
}

/** sha256 of the canonical JSON of `value` (object keys sorted), with the generator version mixed in. */
export function schemaHash(value: unknown): string {
  return createHash('sha256')
    .update(canonicalJson({ generator: GENERATOR_VERSION, value }))
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
