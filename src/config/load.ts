/**
 * Finds, reads and validates the `mcpServers` config. Discovery order: an explicit path (`--config`), then
 * MCPX_CONFIG, then mcpx.json and .mcp.json in the working directory and each parent up to home, then
 * <configDir>/mcpx.json (configCandidates in find.ts). Every error names the file, the server and the
 * field, and says what is expected.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { configCandidates } from './find.js';
import type * as z from 'zod';
import { closeMatches } from './close-matches.js';
import { McpxError, type Issue } from '../errors.js';
import { isAdapterEntry, parseAdapter, type AdapterConfig } from './adapters.js';
import { expandCredentials, expandDeep } from './expand.js';
import type { Policy } from '../policy/index.js';
import { parseElicitBlock } from './policy-block.js';
import { parseNotifyBlock } from './notify-schema.js';
import { parseWebBlock } from './web-schema.js';
import { readConfigJson } from './read-json.js';
import {
  EXPECTED,
  SERVER_FIELDS,
  SERVER_NAME,
  httpServerSchema,
  stdioServerSchema,
  toolSettingsSchema,
  type McpxConfig,
  type ServerConfig,
} from './schema.js';

type Env = Record<string, string | undefined>;

export interface LoadConfigOptions {
  /** A config object, or the path of a config file (relative to `cwd`). Otherwise the file is searched for. */
  config?: McpxConfig | string;
  cwd?: string;
  env?: Env;
  /**
   * A server's env or headers value whose one `${VAR}` is unset: `ask` (the default) asks for it at first use, as an
   * `{"ask": ...}` entry, and keeps it in the secret store; `refuse` makes it a config error, as parseConfig does.
   */
  unsetVariables?: 'ask' | 'refuse';
}

export interface LoadedConfig {
  config: McpxConfig;
  /** The file the config came from; undefined for an object or when none was found. */
  path?: string;
  /** The files looked for, in order, when searching. */
  searched: string[];
  /** The parsed `elicit` block (the policy); the default policy when there is none. */
  policy: Policy;
}

export { configCandidates } from './find.js';

/** Loads the config. No file found is not an error: the config is empty and `searched` says where it looked. */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const unset = options.unsetVariables ?? 'ask';
  if (options.config !== undefined && typeof options.config !== 'string') {
    return { ...parseConfigAndPolicy(options.config, 'the config object', env, unset), searched: [] };
  }
  if (typeof options.config === 'string') {
    const path = isAbsolute(options.config) ? options.config : resolve(cwd, options.config);
    if (!existsSync(path))
      throw new McpxError('CONFIG_NOT_FOUND', `config file ${path} does not exist`, { data: { file: path } });
    return { ...parseConfigAndPolicy(readConfigJson(path), path, env, unset), path, searched: [path] };
  }
  const searched = configCandidates(cwd, env);
  const path = searched.find((p) => existsSync(p));
  if (!path) return { config: { mcpServers: {} }, searched, policy: parseElicitBlock(undefined).policy };
  return { ...parseConfigAndPolicy(readConfigJson(path), path, env, unset), path, searched };
}

export function readConfigFile(path: string, env: Env): McpxConfig {
  return parseConfig(readConfigJson(path), path, env);
}

type Unset = 'ask' | 'refuse';

/** Checks a config as loadConfig reads it (an unset `${VAR}` of env or headers is asked, not an error), naming `source`. */
export function checkConfig(raw: unknown, source: string, env: Env): void {
  parseConfigAndPolicy(raw, source, env, 'ask');
}

/** Validates a raw config value and expands `${VAR}` references. Throws CONFIG_INVALID listing every problem. */
export function parseConfig(raw: unknown, source: string, env: Env): McpxConfig {
  return parseConfigAndPolicy(raw, source, env, 'refuse').config;
}

/** The servers and the `elicit` block together, so one report lists the problems of both. */
function parseConfigAndPolicy(raw: unknown, source: string, env: Env, unset: Unset): { config: McpxConfig; policy: Policy } {
  const issues: Issue[] = [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    fail(source, [
      {
        field: '',
        expected: 'a JSON object like {"mcpServers": {"name": {"command": "..."}}}',
        message: `the config is ${kindOf(raw)}, not an object`,
      },
    ]);
  }
  const record = raw as Record<string, unknown>;
  // VS Code's .vscode/mcp.json calls the same map "servers".
  const servers = record.mcpServers ?? record.servers;
  if (servers === undefined) {
    fail(source, [
      {
        field: 'mcpServers',
        expected: 'an object mapping server names to {"command": ...} or {"url": ...}',
        message: 'the "mcpServers" key is missing',
      },
    ]);
  }
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) {
    fail(source, [
      {
        field: 'mcpServers',
        expected: 'an object mapping server names to server entries',
        message: `"mcpServers" is ${kindOf(servers)}`,
      },
    ]);
  }
  const out: Record<string, ServerConfig> = {};
  const adapters: Record<string, AdapterConfig> = {};
  const forms = new Map<string, string>();
  for (const [name, entry] of Object.entries(servers as Record<string, unknown>)) {
    if (isAdapterEntry(entry)) {
      if (!SERVER_NAME.test(name))
        issues.push({
          field: `mcpServers.${name}`,
          expected: 'a server name of letters, digits, "_" and "-"',
          message: `server "${name}": the name may only use letters, digits, "_" and "-"`,
        });
      const adapter = parseAdapter(name, entry, env, issues, forms);
      if (adapter) adapters[name] = adapter;
      continue;
    }
    const parsed = parseServer(name, entry, { env, unset }, issues, forms);
    if (parsed) out[name] = parsed;
  }
  const elicit = parseElicitBlock(record.elicit);
  issues.push(...elicit.issues);
  const notify = parseNotifyBlock(record.notify, issues);
  const web = parseWebBlock(record.web, issues);
  if (issues.length) fail(source, issues);
  const config: McpxConfig = Object.keys(adapters).length ? { mcpServers: out, adapters } : { mcpServers: out };
  if (notify.length) config.notify = notify;
  if (web) config.web = web;
  if (forms.size) config.secretForms = forms;
  return { config, policy: elicit.policy };
}

function parseServer(
  name: string,
  entry: unknown,
  { env, unset }: { env: Env; unset: Unset },
  issues: Issue[],
  forms: Map<string, string>,
): ServerConfig | undefined {
  const base = `mcpServers.${name}`;
  const before = issues.length;
  if (!SERVER_NAME.test(name)) {
    issues.push({
      field: base,
      expected: 'a server name of letters, digits, "_" and "-"',
      message: `server "${name}": the name may only use letters, digits, "_" and "-"`,
    });
  }
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
    issues.push({
      field: base,
      expected: 'an object with "command" (stdio) or "url" (Streamable HTTP)',
      message: `server "${name}": expected an object with "command" or "url", got ${kindOf(entry)}`,
    });
    return undefined;
  }
  const record = entry as Record<string, unknown>;
  const hasCommand = record.command !== undefined;
  const hasUrl = record.url !== undefined;
  if (record.type === 'sse') {
    issues.push({
      field: `${base}.type`,
      expected: EXPECTED.type!,
      message: `server "${name}": field "type": "sse" is not supported; expected ${EXPECTED.type}`,
    });
    return undefined;
  }
  if (hasCommand === hasUrl) {
    issues.push({
      field: base,
      expected: 'exactly one of "command" (a stdio server) or "url" (a Streamable HTTP server)',
      message: `server "${name}": ${hasCommand ? 'has both "command" and "url"' : `has neither "command" nor "url"${typos(record, ['command', 'url'])}`}; expected exactly one`,
    });
    return undefined;
  }
  const schema: z.ZodType = hasUrl ? httpServerSchema : stdioServerSchema;
  const result = schema.safeParse(record);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const key = expectedKey(issue.path);
      const field = [base, ...issue.path.map(String)].join('.');
      // A cross-field rule (custom) says exactly what is wrong; the field's general description would not.
      const expected = issue.code === 'custom' ? issue.message : (EXPECTED[key] ?? issue.message);
      const got =
        issue.code === 'unrecognized_keys'
          ? unknownKeys(issue.keys, Object.keys(toolSettingsSchema.shape))
          : kindOf(issue.path.length ? valueAt(record, issue.path) : record);
      issues.push({
        field,
        expected,
        message:
          issue.code === 'custom'
            ? `server "${name}": field "${issue.path.map(String).join('.')}": ${expected}`
            : `server "${name}": field "${issue.path.map(String).join('.')}": expected ${expected}, got ${got}`,
      });
    }
    return undefined;
  }
  const { env: envMap, headers, ...rest } = result.data as Record<string, unknown>;
  const expanded = expandDeep(rest, env, base, issues, forms);
  for (const [field, map] of [
    ['env', envMap],
    ['headers', headers],
  ] as const)
    if (map) expanded[field] = expandCredentials(map as Record<string, unknown>, env, `${base}.${field}`, issues, forms, unset);
  return issues.length === before ? (expanded as ServerConfig) : undefined;
}

/** Which EXPECTED entry describes the field at `path`: a tool's own (`tools.<tool>`, `tools.<tool>.elicitTtl`) or the top key's. */
function expectedKey(path: PropertyKey[]): string {
  if (path[0] !== 'tools' || path.length < 2) return String(path[0] ?? '');
  return path.length === 2 ? 'tools.<tool>' : String(path.at(-1));
}

/** `an unknown setting "elicitTTL" (did you mean "elicitTtl"?)`: what a strict object got besides its fields. */
function unknownKeys(keys: readonly string[], wanted: readonly string[]): string {
  return keys
    .map((key) => {
      const [match] = closeMatches(key, wanted);
      return `an unknown setting "${key}"${match ? ` (did you mean "${match}"?)` : ''}`;
    })
    .join(', ');
}

/** ` (unknown field "comand": did you mean "command"?)` for the entry's unknown keys close to the wanted ones. */
function typos(record: Record<string, unknown>, wanted: readonly string[]): string {
  const named = Object.keys(record)
    .filter((key) => !SERVER_FIELDS.includes(key))
    .flatMap((key) => {
      const [match] = closeMatches(key, wanted);
      return match ? [`unknown field "${key}": did you mean "${match}"?`] : [];
    });
  return named.length ? ` (${named.join('; ')})` : '';
}

function valueAt(record: Record<string, unknown>, path: PropertyKey[]): unknown {
  let value: unknown = record;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function fail(source: string, issues: Issue[]): never {
  const lines = issues.map((i) => `  ${i.message}`).join('\n');
  throw new McpxError('CONFIG_INVALID', `invalid config in ${source}:\n${lines}`, { data: { file: source, issues } });
}
