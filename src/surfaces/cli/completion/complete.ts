/**
 * `mcpx __complete`: what the completion scripts call on every Tab. It prints the candidates for the word under the
 * cursor, one a line, or nothing (the shell then offers files). It runs from entry.ts without the command modules:
 * commands, verbs and flags come from static tables, server names from the config file; only a tool name connects
 * (to the daemon when one runs, else to that one server).
 */
import { findConfigPath } from '../../../config/find.js';
import { readConfigJson } from '../../../config/read-json.js';
import { commands } from '../commands/index.js';
import type { CliIO } from '../io.js';
import { COMPLETION_SPECS, GLOBAL_FLAGS, type CompletionSpec, type WordKind } from './spec.js';

/** How long a tool listing may keep the shell waiting before it offers nothing. */
const TOOL_BUDGET_MS = 5000;

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
    return current.startsWith('-') ? ['--help', '--version', '--no-color'] : commandNames();
  }
  const spec = COMPLETION_SPECS[name];
  if (!spec) return [];
  const config = configFlag(args);
  const resolve = (kind: WordKind, given: string[]): Promise<string[]> => valuesOf(kind, current, given, { io, config });

  const previous = args.at(-1);
  const pendingFlag = previous?.startsWith('--') && !previous.includes('=') ? spec.flags[previous.slice(2)] : undefined;
  if (pendingFlag !== undefined && pendingFlag !== true) return resolve(pendingFlag, []);
  if (current.startsWith('--') && current.includes('=')) {
    const flag = current.slice(2, current.indexOf('='));
    const kind = spec.flags[flag];
    if (kind === undefined || kind === true) return [];
    return (await valuesOf(kind, current.slice(flag.length + 3), [], { io, config })).map((v) => `--${flag}=${v}`);
  }
  if (current.startsWith('-')) return [...Object.keys(spec.flags), ...Object.keys(GLOBAL_FLAGS)].map((f) => `--${f}`);

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
    return kinds[index] ?? (last === 'servers' ? last : 'none');
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
      return (await toolNames(server, context)).map((tool) => `${server}.${tool}`);
    }
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

/** The server's tool names: over the daemon's warm connection when one runs, else by connecting to it here. */
async function toolNames(server: string, { io, config }: Context): Promise<string[]> {
  if (!serverNames({ io, config }).includes(server)) return [];
  const { openDiscovery } = await import('../discovery.js');
  const discovery = await openDiscovery(io, config);
  let timer: NodeJS.Timeout | undefined;
  try {
    const listed = discovery.tools(server).then((tools) => tools.map((t) => t.name));
    const late = new Promise<string[]>((resolve) => (timer = setTimeout(() => resolve([]), TOOL_BUDGET_MS)));
    // A tool name with a space or a control character cannot be typed as one word; leave it out.
    return (await Promise.race([listed, late])).filter((name) => /^[^\s\u0000-\u001f\u007f]+$/.test(name));
  } finally {
    clearTimeout(timer);
    await discovery.close().catch(() => undefined);
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
