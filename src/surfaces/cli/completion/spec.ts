/**
 * What the shell completes after each command: its verbs, its flags, and what its positional words and flag values
 * are (a server, `server.tool`, a file, one of a list). Kept beside the command table; a test compares it with
 * every command's --help so a new flag is not forgotten here.
 */

/**
 * What a word completes to. A list is literal choices; `arguments` is the named tool's argument names (`key=`),
 * `question` the id of a question waiting in this session (`--all`: any session).
 */
export type WordKind = 'server' | 'servers' | 'tool' | 'arguments' | 'question' | 'command' | 'file' | 'none' | readonly string[];

export interface CompletionSpec {
  /** Verbs after the command (`elicit answer`), each with what follows it. */
  verbs?: Record<string, WordKind[]>;
  /** Positional words in order (the last one repeats when it is plural: `servers`, `arguments`). */
  words?: WordKind[];
  /** Flags without the dashes; a value kind for flags that take one, `true` for booleans. */
  flags: Record<string, WordKind | true>;
}

const ELICIT_MODES = ['prompt', 'return', 'auto', 'decline', 'error'] as const;
const config = { config: 'file' } as const;
/** `run` and `exec` take the same flags: both run a script. */
const scriptFlags = {
  check: true,
  json: true,
  elicit: ELICIT_MODES,
  'memory-limit': 'none',
  'cpu-limit': 'none',
  timeout: 'none',
  ...config,
} as const;

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export const COMPLETION_SPECS: Record<string, CompletionSpec> = {
  call: { words: ['tool', 'arguments'], flags: { json: true, task: true, elicit: ELICIT_MODES, ...config } },
  list: { words: ['server'], flags: { json: true, schema: true, ...config } },
  prompt: {
    verbs: { list: ['server'], get: ['server', 'none'] },
    flags: { json: true, elicit: ELICIT_MODES, arg: 'none', ...config },
  },
  resource: {
    verbs: { list: ['server'], read: ['server', 'none'] },
    flags: { json: true, elicit: ELICIT_MODES, out: 'file', ...config },
  },
  serve: {
    words: ['servers'],
    flags: { http: true, port: 'none', host: 'none', 'token-file': 'file', 'no-auth': true, ...config },
  },
  elicit: {
    verbs: {
      answer: ['question'],
      decline: ['question'],
      cancel: ['question'],
      list: [],
      count: [],
      ui: [],
      watch: [],
      web: [],
    },
    flags: {
      json: true,
      all: true,
      open: true,
      state: ['pending', 'answered', 'expired', 'abandoned', 'all'],
      server: 'server',
      tool: 'none',
      count: 'none',
      kinds: 'none',
      session: 'none',
      // web: pairing a phone, and the paired devices
      pair: true,
      name: 'none',
      listen: 'none',
      cert: 'file',
      key: 'file',
      'behind-proxy': true,
      url: 'none',
      devices: true,
      revoke: 'none',
      ...config,
    },
  },
  task: { verbs: { result: ['none'], show: ['none'] }, flags: { json: true, all: true, timeout: 'none', ...config } },
  daemon: {
    verbs: { start: [], stop: [], status: [], run: [] },
    flags: { json: true, all: true, port: 'none', idle: 'none', prewarm: 'server', ...config },
  },
  log: { flags: { json: true, chain: 'none', session: 'none', limit: 'none' } },
  run: {
    words: ['file'],
    flags: scriptFlags,
  },
  exec: {
    words: ['none'],
    flags: scriptFlags,
  },
  inbox: { flags: { session: 'none', ...config } },
  skill: {
    verbs: { install: [], path: [] },
    flags: { global: true, json: true, for: ['claude', 'opencode', 'agents'], dir: 'file' },
  },
  auth: { verbs: { status: [], logout: ['server'] }, words: ['server'], flags: {} },
  hook: {
    verbs: { 'claude-code': [] },
    flags: {
      install: true,
      uninstall: true,
      json: true,
      wait: 'none',
      'no-answer': ['dialog', 'cancel'],
      scope: ['user', 'project'],
      command: 'none',
      ...config,
    },
  },
  notify: { verbs: { test: [] }, flags: { json: true, ...config } },
  gen: {
    words: ['servers'],
    flags: { 'types-only': true, check: true, 'no-daemon': true, out: 'file', 'runtime-import': 'none', ...config },
  },
  doctor: { words: ['servers'], flags: { json: true, elicit: ['prompt', 'return'], ...config } },
  add: {
    words: ['none', 'none'],
    flags: { env: 'none', header: 'none', era: ['legacy', 'modern', 'auto'], force: true, ...config },
  },
  completion: { words: [SHELLS], flags: {} },
  help: { words: ['command'], flags: {} },
};

/** Flags every command takes (read before the command runs); offered where `mcpx --help` shows them, before a command. */
export const GLOBAL_FLAGS: Record<string, true> = { help: true, 'no-color': true };
