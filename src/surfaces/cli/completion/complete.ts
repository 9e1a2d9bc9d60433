/**
 * `mcpx __complete`: what the completion scripts call on every Tab. It prints the candidates for the word under the
 * cursor, one a line, or nothing (the shell then offers files). It runs from entry.ts without the command modules:
 * commands, verbs and flags come from static tables, server names from the config file; a tool or argument name
 * connects (to the daemon when one runs, else to that one server), a question id reads the questions waiting.
 */
import { findConfigPath } from '../../../config/find.js';
import { readConfigJson } from '../../../config/read-json.js';
import { commands } from '../commands/index.js';
import type { Tool } from '@modelcontextprotocol/client';
import type { CliIO } from '../io.js';
import { COMPLETION_SPECS, GLOBAL_FLAGS, type CompletionSpec, type WordKind } from './spec.js';

/** How long a tool listing or the waiting questions may keep the shell waiting before it offers nothing. */
const LOOKUP_BUDGET_MS = 5000;

/**
 * How the shells call it:
 *   mcpx __complete -- mcpx call fx.ec          (zsh, fish: the words up to the cursor, the last one partial)
 *   mcpx __complete --line 'mcpx call fx.ec' --word fx.ec   (bash: the line up to the cursor, and bash's own
 *                                                 current word, which stops at = and :, so candidates are cut to it)
 */
export async function complete(argv: string[], io: CliIO): Promise<number> {
  let words: string[];
  let shellWord: string | undefined;
  if (argv[0] === '--line') {
    words = splitLine(argv[1] ?? '');
    shellWord = argv[2] === '--word' ? (argv[3] ?? '') : undefined;
  } else {
    words = argv[0] === '--' ? argv.slice(1) : argv;
  }
  if (!words.length) words = ['mcpx', ''];
  let candidates: string[] = [];
  try {
    candidates = await candidatesFor(words.slice(1), io);
  } catch {
    // A broken config or an unreachable server: offer nothing rather than print an error into the prompt.
  }
  const current = words.at(-1) ?? '';
  const cut = shellWord !== undefined && current.endsWith(shellWord) ? current.length - shellWord.length : 0;
  const shown = candidates.filter((c) => c.startsWith(current)).map((c) => c.slice(cut));
  if (shown.length) io.stdout.write(`${[...new Set(shown)].join('\n')}\n`);
  return 0;
}

/** The candidates for the last of `words` (the words after `mcpx`; the last may be empty). */
async function candidatesFor(words: string[], io: CliIO): Promise<string[]> {
  const current = words.at(-1) ?? '';
  const done = words.slice(0, -1).filter((w) => w !== '--no-color');
  const [name, ...args] = done;
  if (name === undefined) {
    return current.startsWith('-') ? ['--help', '--version', ...Object.keys(GLOBAL_FLAGS).map((f) => `--${f}`)] : commandNames();
  }
  const spec = COMPLETION_SPECS[name];
  if (!spec) return [];
  const context: Context = { io, config: configFlag(args), all: args.includes('--all') };
  const resolve = (kind: WordKind, given: string[]): Promise<string[]> => valuesOf(kind, current, given, context);

  const previous = args.at(-1);
  const pendingFlag = previous?.startsWith('--') && !previous.includes('=') ? spec.flags[previous.slice(2)] : undefined;
  if (pendingFlag !== undefined && pendingFlag !== true) return resolve(pendingFlag, []);
  if (current.startsWith('--') && current.includes('=')) {
    const flag = current.slice(2, current.indexOf('='));
    const kind = spec.flags[flag];
    if (kind === undefined || kind === true) return [];
    return (await valuesOf(kind, current.slice(flag.length + 3), [], context)).map((v) => `--${flag}=${v}`);
  }
  // A command's own flags and --help, the words its --help shows (--no-color works everywhere; mcpx --help says so).
  if (current.startsWith('-')) return [...Object.keys(spec.flags), 'help'].map((f) => `--${f}`);

  const positional = positionalWords(args, spec);
  return positionalCandidates(spec, positional, resolve);
}

async function positionalCandidates(
  spec: CompletionSpec,
  positional: string[],
  resolve: (kind: WordKind, given: string[]) => Promise<string[]>,
): Promise<string[]> {
  const at = (kinds: readonly WordKind[] | undefined, index: number): WordKind => {
    if (!kinds?.length) return 'none';
    const last = kinds[kinds.length - 1] as WordKind;
    return kinds[index] ?? (last === 'servers' || last === 'arguments' ? last : 'none');
  };
  if (spec.verbs) {
    const verbs = Object.keys(spec.verbs);
    if (!positional.length) return [...verbs, ...(spec.words ? await resolve(at(spec.words, 0), []) : [])];
    const [verb = '', ...rest] = positional;
    const kinds = spec.verbs[verb];
    return resolve(kinds ? at(kinds, rest.length) : at(spec.words, positional.length), rest);
  }
  return resolve(at(spec.words, positional.length), positional);
}

/** The positional words among `args`, skipping flags and the values of flags that take one. */
function positionalWords(args: string[], spec: CompletionSpec): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') return [...out, ...args.slice(i + 1)];
    if (word.startsWith('--')) {
      const kind = spec.flags[word.slice(2)];
      if (kind !== undefined && kind !== true && !word.includes('=')) i++;
      continue;
    }
    if (word !== '-h') out.push(word);
  }
  return out;
}

function configFlag(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--config') return args[i + 1];
    if (word.startsWith('--config=')) return word.slice('--config='.length);
  }
  return undefined;
}

function commandNames(): string[] {
  return [...Object.keys(commands), 'help'].sort();
}

interface Context {
  io: CliIO;
  config: string | undefined;
  /** `--all` was given: an operator's scope, every session's questions. */
  all: boolean;
}

async function valuesOf(kind: WordKind, current: string, given: string[], context: Context): Promise<string[]> {
  if (Array.isArray(kind)) return [...kind];
  switch (kind) {
    case 'command':
      return commandNames();
    case 'server':
      return serverNames(context);
    case 'servers':
      return serverNames(context).filter((s) => !given.includes(s));
    case 'tool': {
      const dot = current.indexOf('.');
      if (dot <= 0) return serverNames(context).map((s) => `${s}.`);
      const server = current.slice(0, dot);
      return (await toolsOf(server, context))
        .map((tool) => tool.name)
        .filter(typeable)
        .map((tool) => `${server}.${tool}`);
    }
    case 'arguments':
      return argumentNames(given, context);
    case 'question':
      return given.length ? [] : questionIds(context);
    default:
      return [];
  }
}

function serverNames({ io, config }: Context): string[] {
  const path = findConfigPath(config, io.cwd, io.env);
  if (!path) return [];
  const raw = readConfigJson(path) as { mcpServers?: unknown; servers?: unknown } | undefined;
  const servers = raw?.mcpServers ?? raw?.servers;
  return servers && typeof servers === 'object' ? Object.keys(servers) : [];
}

/** A name with a space or a control character cannot be typed as one word; it is left out. */
function typeable(name: string): boolean {
  return /^[^\s\u0000-\u001f\u007f]+$/.test(name);
}

/** `lookup`'s result, or `empty` when it takes longer than the shell should wait. */
async function withinBudget<T>(lookup: Promise<T>, empty: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(empty), LOOKUP_BUDGET_MS)));
  try {
    return await Promise.race([lookup, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The server's tools: over the daemon's warm connection when one runs, else by connecting to it here. */
async function toolsOf(server: string, { io, config }: Context): Promise<Tool[]> {
  if (!serverNames({ io, config, all: false }).includes(server)) return [];
  const { openDiscovery } = await import('../discovery.js');
  const discovery = await openDiscovery(io, config);
  try {
    return await withinBudget(discovery.tools(server), []);
  } finally {
    await discovery.close().catch(() => undefined);
  }
}

/** After `call server.tool`: its top-level argument names as `name=`, those not given yet. */
async function argumentNames(given: string[], context: Context): Promise<string[]> {
  const [target = '', ...words] = given;
  const dot = target.indexOf('.');
  if (dot <= 0) return [];
  const name = target.slice(dot + 1);
  const tool = (await toolsOf(target.slice(0, dot), context)).find((t) => t.name === name);
  const used = new Set(words.map((w) => w.slice(0, w.indexOf('='))));
  return Object.keys(tool?.inputSchema.properties ?? {})
    .filter((arg) => typeable(arg) && !arg.includes('=') && !used.has(arg))
    .map((arg) => `${arg}=`);
}

/** The ids of the questions waiting in this command's session (every session's with --all), oldest first. */
async function questionIds({ io, config, all }: Context): Promise<string[]> {
  const [{ openBackend }, { commandSession }] = await Promise.all([import('../connect.js'), import('../session.js')]);
  const backend = await openBackend(io, { config, forCall: false });
  try {
    const scope = all ? { all: true } : { session: commandSession(io, config).session };
    return (await withinBudget(backend.list(scope), [])).map((q) => q.id);
  } finally {
    await backend.close().catch(() => undefined);
  }
}

/** The words of a command line as the shell splits them (quotes and backslashes); a trailing space starts a new word. */
export function splitLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: '"' | "'" | undefined;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += ch;
      started = true;
    }
  }
  words.push(word);
  return words;
}
