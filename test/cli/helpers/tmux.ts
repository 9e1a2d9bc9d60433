/** A real pseudo-terminal for tests: a private tmux server running one command, driven by keys, read by screen. */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface Terminal {
  /** Literal text typed into the pane. */
  type(text: string): void;
  /** tmux key names: Enter, Down, Space, C-c, BSpace... */
  keys(...names: string[]): void;
  screen(): string;
  /** The screen with its colours and attributes as SGR escape sequences (tmux capture-pane -e). */
  styledScreen(): string;
  /** The pane's title (an OSC 0/2 sequence written to the terminal would change it). */
  title(): string;
  /** Resolves when the screen shows `text`; rejects with the screen after `timeoutMs`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
}

export function openTerminal(command: string[], options: { cwd: string; env?: Record<string, string> }): Terminal {
  const socket = `mcpx-test-${randomBytes(6).toString('hex')}`;
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const env = Object.entries(options.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  // `; sleep` keeps the pane (and its last screen) alive after the command exits.
  const shellLine = `${command.map(quote).join(' ')}; sleep 60`;
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', '100', '-y', '50', '-c', options.cwd, ...env, shellLine);
  tmux('set-option', '-g', 'allow-rename', 'on');
  const screen = (): string => tmux('capture-pane', '-p', '-J', '-S', '-200');
  return {
    type: (text) => void tmux('send-keys', '-l', text),
    keys: (...names) => void tmux('send-keys', ...names),
    screen,
    styledScreen: () => tmux('capture-pane', '-p', '-e', '-J', '-S', '-200'),
    title: () => tmux('display-message', '-p', '#{pane_title}').trim(),
    async waitFor(text, timeoutMs = 45_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const shown = screen();
        if (typeof text === 'string' ? shown.includes(text) : text.test(shown)) return shown;
        if (Date.now() > deadline) throw new Error(`terminal never showed ${String(text)}; screen:\n${shown}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: () => {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    },
  };
}

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
