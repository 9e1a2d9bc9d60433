/**
 * `${VAR}` and `${VAR:-default}` in config strings, as Claude Code's .mcp.json has them, so secrets stay in the
 * environment and out of the file. `$$` is not special; only the braced form expands.
 */
import type { Issue } from '../errors.js';

type Env = Record<string, string | undefined>;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The names of the variables `text` refers to, each once, sorted. */
export function referencedNames(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(REFERENCE), (match) => match[1]!))].sort();
}

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

/**
 * An env or headers value whose one unset variable (no default) mcpx can ask for: kept as an asked entry, so the
 * value is asked at first use and kept in the secret store, then filled into the text where `${VAR}` stood
 * (`"Bearer ${TOKEN}"`). Made by loadConfig, never read from a file.
 */
export interface UnsetReference {
  ask: string;
  secret: true;
  reference: { variable: string; text: string };
}

/** Expands a map of env or headers values; with `unset: 'ask'`, a value with one unset variable becomes an UnsetReference. */
export function expandCredentials<T>(
  map: Record<string, T>,
  env: Env,
  field: string,
  issues: Issue[],
  forms: Map<string, string>,
  unset: 'ask' | 'refuse',
): Record<string, T | UnsetReference> {
  const out: Record<string, T | UnsetReference> = {};
  for (const [key, value] of Object.entries(map)) {
    const at = `${field}.${key}`;
    const variables = typeof value === 'string' && unset === 'ask' ? unsetVariables(value, env) : [];
    if (typeof value !== 'string' || variables.length !== 1) {
      out[key] = expandDeep(value, env, at, issues, forms);
      continue;
    }
    const variable = variables[0]!;
    // The other references expand as usual; the unset one stays, to be filled from the secret store.
    const text = expandString(value, env, at, [], forms);
    out[key] = { ask: `the value of \${${variable}} (not set in the environment)`, secret: true, reference: { variable, text } };
  }
  return out;
}

/** The distinct variables `value` refers to without a default that are unset (or empty) in `env`. */
function unsetVariables(value: string, env: Env): string[] {
  const names = new Set<string>();
  for (const [, name, fallback] of value.matchAll(REFERENCE))
    if (fallback === undefined && (env[name!] === undefined || env[name!] === '')) names.add(name!);
  return [...names];
}

/** The text of an UnsetReference with its variable's value in place. */
export function fillReference(reference: UnsetReference['reference'], value: string): string {
  return reference.text.split(`\${${reference.variable}}`).join(value);
}
