/**
 * `${VAR}` and `${VAR:-default}` in config strings, as Claude Code's .mcp.json has them, so secrets stay in the
 * environment and out of the file. `$$` is not special; only the braced form expands.
 */
import type { Issue } from '../errors.js';

type Env = Record<string, string | undefined>;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands every reference in `value`; unset variables without a default are reported as issues at `field`. */
export function expandString(value: string, env: Env, field: string, issues: Issue[]): string {
  return value.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const set = env[name];
    if (set !== undefined && set !== '') return set;
    if (fallback !== undefined) return fallback;
    issues.push({
      field,
      expected: `the environment variable ${name} to be set (or write \${${name}:-default})`,
      message: `${field}: ${whole} refers to ${name}, which is not set`,
    });
    return whole;
  });
}

/** Expands strings inside arrays and string maps, keeping keys as they are. */
export function expandDeep<T>(value: T, env: Env, field: string, issues: Issue[]): T {
  if (typeof value === 'string') return expandString(value, env, field, issues) as T;
  if (Array.isArray(value)) return value.map((v, i) => expandDeep(v, env, `${field}[${i}]`, issues)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandDeep(v, env, `${field}.${k}`, issues);
    return out as T;
  }
  return value;
}
