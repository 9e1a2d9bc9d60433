/**
 * A command-line program's chosen commands as tools. Each command is a template of words with `{name}`
 * placeholders filled from the tool's arguments (never through a shell: execFile), run with a deadline and a cap
 * on what it may print. A command marked `writes` asks before it runs.
 */
import { execFile } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { CliAdapterConfig, CliCommandConfig } from '../../config/adapters.js';
import { McpxError } from '../../errors.js';
import type { AdapterContext } from '../connectors.js';
import { createNamer } from '../names.js';
import { redact, type SecretForms } from '../../secrets/redact.js';
import { failure, type AdapterTool, type AdapterToolSet } from '../tool-set.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function cliTools(adapter: string, config: CliAdapterConfig, context: AdapterContext): AdapterToolSet {
  const warnings: string[] = [];
  const nameFor = createNamer((message) => warnings.push(message));
  const cwd = config.cwd ? (isAbsolute(config.cwd) ? config.cwd : resolve(context.baseDir, config.cwd)) : context.baseDir;
  const tools: AdapterTool[] = [];
  const shown = (text: string): string => redact(text, context.secretForms);
  for (const [command, spec] of Object.entries(config.commands)) {
    const inputSchema = spec.input ?? { type: 'object', properties: {} };
    const known = new Set(Object.keys((inputSchema.properties ?? {}) as Record<string, unknown>));
    for (const name of placeholders(spec)) {
      if (!known.has(name))
        throw new McpxError(
          'ADAPTER_INVALID',
          `adapter "${adapter}": command "${command}" uses {${name}}, which its "input" schema does not define`,
          { data: { server: adapter } },
        );
    }
    const definition: Tool = {
      name: nameFor(command, `command "${command}"`),
      description: `${spec.description ? `${spec.description}\n\n` : ''}Runs: ${shown([config.cli, ...(config.args ?? []), ...spec.args.map((w) => (typeof w === 'string' ? w : `[${w.args.join(' ')}]`))].join(' '))}.${spec.writes ? ' Asks for confirmation before it runs.' : ''}`,
      inputSchema: { additionalProperties: false, ...inputSchema, type: 'object' } as Tool['inputSchema'],
      annotations: { readOnlyHint: spec.writes !== true, destructiveHint: spec.writes === true, openWorldHint: false },
    };
    tools.push({
      definition,
      confirmation: (args) =>
        spec.writes
          ? `run ${shown(shellQuote([config.cli, ...(config.args ?? []), ...words(spec, args)]))}: proceed?`
          : undefined,
      run: (args, signal) =>
        run(config, cwd, context.env, [...(config.args ?? []), ...words(spec, args)], signal, context.secretForms),
    });
  }
  return { tools, warnings };
}

function placeholders(spec: CliCommandConfig): string[] {
  const names: string[] = [];
  for (const word of spec.args) {
    const texts = typeof word === 'string' ? [word] : [`{${word.when}}`, ...word.args];
    for (const text of texts) for (const match of text.matchAll(PLACEHOLDER)) names.push(match[1]!);
  }
  return names;
}

/**
 * The command's words for these arguments. A word that is one placeholder becomes the value (an array, one word
 * per item; absent, no word). A value that starts with "-" is refused there unless a "--" word came before it,
 * so an argument cannot turn into an option of the program.
 */
export function words(spec: CliCommandConfig, args: Record<string, unknown>): string[] {
  const out: string[] = [];
  let afterDashes = false;
  const fill = (text: string): string[] => {
    const whole = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(text);
    if (whole) {
      const value = args[whole[1]!];
      if (value === undefined || value === null) return [];
      const items = (Array.isArray(value) ? value : [value]).map(String);
      for (const item of items) {
        if (item.startsWith('-') && !afterDashes)
          throw new McpxError(
            'ADAPTER_INVALID',
            `argument "${whole[1]}" is ${JSON.stringify(item)}: a value starting with "-" would be read as an option`,
          );
      }
      return items;
    }
    let missing = false;
    const filled = text.replace(PLACEHOLDER, (_m, name: string) => {
      const value = args[name];
      if (value === undefined || value === null) missing = true;
      return String(value);
    });
    return missing ? [] : [filled];
  };
  for (const word of spec.args) {
    if (typeof word === 'string') {
      out.push(...fill(word));
      if (word === '--') afterDashes = true;
      continue;
    }
    const flag = args[word.when];
    if (flag === undefined || flag === null || flag === false) continue;
    for (const inner of word.args) out.push(...fill(inner));
  }
  return out;
}

function run(
  config: CliAdapterConfig,
  cwd: string,
  env: Record<string, string | undefined>,
  argv: string[],
  signal: AbortSignal,
  secretForms: SecretForms | undefined,
): Promise<CallToolResult> {
  const timeout = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBuffer = config.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...env, ...(config.env ?? {}) })) if (typeof v === 'string') childEnv[k] = v;
  const line = shellQuote([config.cli, ...argv]);
  // A failure shows the command line and the program's stderr: the config's `${VAR}` values there are redacted.
  const failed = (text: string): CallToolResult => failure(redact(text, secretForms));
  return new Promise((done) => {
    execFile(config.cli, argv, { cwd, env: childEnv, timeout, maxBuffer, signal, windowsHide: true }, (error, stdout, stderr) => {
      const out = String(stdout);
      const err = String(stderr);
      if (!error)
        return done({ content: [{ type: 'text', text: out || err || redact(`${line}: done (no output)`, secretForms) }] });
      const e = error as NodeJS.ErrnoException & { killed?: boolean; code?: number | string; signal?: string };
      if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
        return done(failed(`${line}: printed more than ${maxBuffer} bytes (maxOutputBytes); stopped`));
      if (e.code === 'ENOENT') return done(failed(`${line}: the program "${config.cli}" was not found`));
      if (e.killed || e.signal)
        return done(failed(`${line}: stopped after ${timeout} ms (timeoutMs)${e.signal ? ` by ${e.signal}` : ''}`));
      done(failed(`${line} exited ${String(e.code)}${err ? `:\n${err.slice(-4000)}` : ''}${out ? `\n${out.slice(-4000)}` : ''}`));
    });
  });
}

/** A command line as a person would type it, for questions and messages. */
function shellQuote(argv: string[]): string {
  return argv.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}
