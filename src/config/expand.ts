/**
 * `${VAR}` and `${VAR:-default}` in config strings, as Claude Code's .mcp.json has them, so secrets stay in the
 * environment and out of the file. `$$` is not special; only the braced form expands.
 */
import type { Issue } from '../errors.js';

type Env = Record<string, string | undefined>;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands every reference in `value`; unset variables without a default are reported as issues at `field`.
 * Each value taken from the environment is noted in `forms` with the reference that named it (`${NAME}`), so
 * messages and records can show the reference instead (src/secrets/redact.ts). A default is the config's own text.
 */
export function expandString(value: string, env: Env, field: string, issues: Issue[], forms?: Map<string, string>): string {
  return value.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const set = env[name];
    if (set !== undefined && set !== '') {
      forms?.set(set, `\${${name}}`);
      return set;
    }
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
export function expandDeep<T>(value: T, env: Env, field: string, issues: Issue[], forms?: Map<string, string>): T {
  if (typeof value === 'string') return expandString(value, env, field, issues, forms) as T;
  if (Array.isArray(value)) return value.map((v, i) => expandDeep(v, env, `${field}[${i}]`, issues, forms)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandDeep(v, env, `${field}.${k}`, issues, forms);
    return out as T;
  }
  return value;
}
