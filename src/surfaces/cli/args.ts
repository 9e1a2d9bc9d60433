/**
 * Command-line parsing: flags (`--json`, `--elicit=return`, `--config file`), the `server.tool` target, and tool
 * arguments given as one JSON object or as `key=value` words with sensible typing.
 */
export interface FlagSpec {
  /** Flags that take no value. */
  booleans?: readonly string[];
  /** Flags that take a value: `--name value` or `--name=value`. */
  strings?: readonly string[];
}

export interface ParsedArgs {
  flags: Record<string, string | boolean | undefined>;
  positional: string[];
}

/** A usage mistake: the command prints the message and its usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const booleans = new Set(['help', ...(spec.booleans ?? [])]);
  const strings = new Set(spec.strings ?? []);
  const flags: ParsedArgs['flags'] = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (word === '-h') {
      flags.help = true;
      continue;
    }
    if (!word.startsWith('--') || word === '--') {
      positional.push(word);
      continue;
    }
    const eq = word.indexOf('=');
    const name = word.slice(2, eq === -1 ? undefined : eq);
    if (booleans.has(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
    } else if (strings.has(name)) {
      const value = eq === -1 ? argv[++i] : word.slice(eq + 1);
      if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
      flags[name] = value;
    } else {
      const known = [...booleans, ...strings].map((f) => `--${f}`).join(', ');
      throw new UsageError(`unknown option --${name} (known: ${known})`);
    }
  }
  return { flags, positional };
}

/** `server.tool` split at the first dot (tool names may contain dots; server names may not). */
export function parseTarget(target: string | undefined): { server: string; tool: string } {
  const dot = target?.indexOf('.') ?? -1;
  if (!target || dot <= 0 || dot === target.length - 1) {
    throw new UsageError(
      `expected server.tool (e.g. github.create_issue), got ${target === undefined ? 'nothing' : JSON.stringify(target)}`,
    );
  }
  return { server: target.slice(0, dot), tool: target.slice(dot + 1) };
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Tool arguments: one JSON object (`'{"title":"x"}'`), or words `key=value` (typed: numbers, true/false, null,
 * and JSON objects/arrays; anything else a string) and `key:=json` (exactly that JSON, e.g. `zip:='"01234"'`).
 * `a.b=1` nests. A repeated key collects its values into an array.
 */
export function parseToolArguments(words: readonly string[]): Record<string, unknown> {
  if (words.length === 1 && /^\s*\{/.test(words[0] as string)) return parseJsonObject(words[0] as string);
  const out: Record<string, unknown> = {};
  for (const word of words) {
    const match = /^([^=:]+?)(:=|=)([\s\S]*)$/.exec(word);
    if (!match) throw new UsageError(`expected key=value, key:=json or one JSON object, got ${JSON.stringify(word)}`);
    const [, key = '', op, raw = ''] = match;
    const value = op === ':=' ? parseJson(raw, key) : guess(raw);
    assign(out, key.split('.'), value, word);
  }
  return out;
}

export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `the arguments are not valid JSON (${(error as Error).message}); quote them for the shell: '{"key":"value"}'`,
    );
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError('the arguments must be a JSON object, e.g. \'{"key":"value"}\'');
  return value as Record<string, unknown>;
}

function parseJson(raw: string, key: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new UsageError(`${key}:= needs JSON, got ${JSON.stringify(raw)} (a string is written '"text"')`);
  }
}

function guess(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (NUMBER.test(raw) && Number.isFinite(Number(raw)) && !/^-?0\d/.test(raw)) return Number(raw);
  if (/^[[{]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

function assign(target: Record<string, unknown>, path: string[], value: unknown, word: string): void {
  const [head, ...rest] = path;
  if (!head) throw new UsageError(`empty key in ${JSON.stringify(word)}`);
  if (head === '__proto__' || head === 'constructor' || head === 'prototype') throw new UsageError(`refusing the key ${head}`);
  if (rest.length) {
    const child = target[head];
    if (child !== undefined && (typeof child !== 'object' || child === null || Array.isArray(child)))
      throw new UsageError(`${head} is both a value and an object in ${JSON.stringify(word)}`);
    const next = (child ?? {}) as Record<string, unknown>;
    target[head] = next;
    assign(next, rest, value, word);
    return;
  }
  if (head in target) {
    const existing = target[head];
    target[head] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  } else {
    target[head] = value;
  }
}

/** What the CLI does with a question (`--elicit`); not a question's `ElicitMode` (form or url). */
export type ElicitFlag = 'prompt' | 'return' | 'auto' | 'decline' | 'error';
export const ELICIT_FLAGS: readonly ElicitFlag[] = ['prompt', 'return', 'auto', 'decline', 'error'];

/** `--elicit`, else MCPX_ELICIT, else prompt on a terminal and return otherwise. */
export function elicitModeOf(
  flag: string | boolean | undefined,
  env: Record<string, string | undefined>,
  isTTY: boolean,
): ElicitFlag {
  const chosen = typeof flag === 'string' ? flag : env.MCPX_ELICIT;
  if (chosen === undefined || chosen === '') return isTTY ? 'prompt' : 'return';
  if (!(ELICIT_FLAGS as readonly string[]).includes(chosen))
    throw new UsageError(`--elicit takes ${ELICIT_FLAGS.join(' | ')}, got ${JSON.stringify(chosen)}`);
  return chosen as ElicitFlag;
}
