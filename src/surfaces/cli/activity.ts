/**
 * A spinner on stderr while a call runs, for a person at a terminal: it appears after a second (a quick call shows
 * nothing), shows the server's progress (progress/total and its message, sanitised) when the server reports it,
 * and is wiped before anything else is written. Nothing at all when stderr is not a terminal.
 */
import type { CliIO } from './io.js';
import { sanitizeLine } from './sanitize.js';

export interface Progress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

export interface Activity {
  /** The server's latest progress notification. */
  progress(update: Progress): void;
  /** Wipes the line; call before writing anything else to the terminal. */
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const IDLE: Activity = { progress: () => undefined, stop: () => undefined };

/** Starts the spinner for `label` (e.g. "fx.sleep"); `delayMs` before it first shows. */
export function showActivity(io: Pick<CliIO, 'stderr'>, label: string, delayMs = 1000): Activity {
  const stderr = io.stderr as CliIO['stderr'] & { isTTY?: boolean; columns?: number };
  if (stderr.isTTY !== true) return IDLE;
  const started = Date.now();
  let frame = 0;
  let latest: Progress | undefined;
  let drawn = false;
  let ticker: NodeJS.Timeout | undefined;
  const draw = (): void => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    const line = `${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s${latest ? `  ${describe(latest)}` : ''}`;
    const width = Math.max(20, (stderr.columns ?? 80) - 1);
    stderr.write(`\r\u001b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    drawn = true;
  };
  const start = (): void => {
    if (ticker) return;
    draw();
    ticker = setInterval(draw, 100);
    ticker.unref();
  };
  const delay = setTimeout(start, delayMs);
  delay.unref();
  return {
    progress(update) {
      latest = update;
      start();
    },
    stop() {
      clearTimeout(delay);
      clearInterval(ticker);
      ticker = undefined;
      if (drawn) stderr.write('\r\u001b[2K');
      drawn = false;
    },
  };
}

function describe({ progress, total, message }: Progress): string {
  const amount =
    total !== undefined && total > 0
      ? `${bar(progress / total)} ${Math.round(Math.min(1, progress / total) * 100)}%`
      : `${progress}`;
  const text = message ? ` ${sanitizeLine(message, 120)}` : '';
  return `${amount}${text}`;
}

function bar(fraction: number): string {
  const filled = Math.round(Math.max(0, Math.min(1, fraction)) * 20);
  return `[${'#'.repeat(filled)}${'-'.repeat(20 - filled)}]`;
}
