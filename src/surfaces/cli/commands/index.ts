/** The command table: one line per command, each loaded only when used (keeps a warm `mcpx call` fast). */
import type { Command } from '../io.js';

export interface CommandEntry {
  summary: string;
  load: () => Promise<Command>;
}

export const commands: Record<string, CommandEntry> = {
  call: {
    summary: "call a tool: mcpx call server.tool '{json}' | key=value...",
    load: async () => (await import('./call.js')).command,
  },
  list: {
    summary: "the configured servers with their status and era, or one server's tools: mcpx list [server] [--json|--schema]",
    load: async () => (await import('./list.js')).command,
  },
  prompt: {
    summary: "a server's prompts: mcpx prompt list <server> | get <server> <name> [--arg key=value ...]",
    load: async () => (await import('./requests.js')).promptCommand,
  },
  resource: {
    summary: "a server's resources: mcpx resource list <server> | read <server> <uri> [--out file]",
    load: async () => (await import('./requests.js')).resourceCommand,
  },
  serve: {
    summary: "serve the configured servers' tools as one MCP server (stdio) for agents: mcpx serve [server...]",
    load: async () => (await import('./serve.js')).command,
  },
  elicit: {
    summary: 'answer, decline, cancel, list or watch waiting questions; web: answer them in a browser',
    load: async () => (await import('./elicit.js')).command,
  },
  task: {
    summary: 'collect the result of a call the daemon holds: mcpx task result tsk-...',
    load: async () => (await import('./task.js')).command,
  },
  daemon: {
    summary: 'start, stop or check the daemon that holds calls and answers REST: mcpx daemon start|stop|status',
    load: async () => (await import('./daemon.js')).command,
  },
  log: {
    summary: 'the audit trail of questions and answers (--chain follows one call)',
    load: async () => (await import('./log.js')).command,
  },
  run: {
    summary: 'run a script in the sandbox with tools, onElicit and ask: mcpx run script.ts',
    load: async () => (await import('./run.js')).command,
  },
  inbox: {
    summary: 'a live inbox of waiting questions on this terminal (the same as mcpx elicit ui)',
    load: async () => (await import('./elicit-ui.js')).command,
  },
  skill: {
    summary: 'install the mcpx-elicitation skill for opencode and Claude Code: mcpx skill install [--global]',
    load: async () => (await import('./skill.js')).command,
  },
  exec: {
    summary: "run an inline script in the sandbox: mcpx exec 'export default await tools.s.t({})' (or - for stdin)",
    load: async () => (await import('./exec.js')).command,
  },
  auth: {
    summary:
      'sign in to an OAuth-protected http server, or see or forget sign-ins: mcpx auth <server> | status | logout <server>',
    load: async () => (await import('./auth.js')).command,
  },
  gen: {
    summary: 'generate typed tool clients (or script declarations with --types-only): mcpx gen [server...] --out dir',
    load: async () => (await import('./gen.js')).command,
  },
  hook: {
    summary: "Claude Code's Elicitation hook: its servers' questions wait in mcpx: mcpx hook claude-code [--install]",
    load: async () => (await import('./hook.js')).command,
  },
  notify: {
    summary: "send a sample question through every sink of the config's notify list: mcpx notify test",
    load: async () => (await import('./notify.js')).command,
  },
  doctor: {
    summary: 'check every configured server, and ask for what an answer fixes (credentials, sign-ins): mcpx doctor [server...]',
    load: async () => (await import('./doctor.js')).command,
  },
  add: {
    summary: 'add a server to the config, keeping its comments: mcpx add <name> -- <command...> | mcpx add <name> <url>',
    load: async () => (await import('./add.js')).command,
  },
  completion: {
    summary: 'print a shell completion script: source <(mcpx completion bash) (zsh, fish too)',
    load: async () => (await import('../completion/scripts.js')).command,
  },
};
