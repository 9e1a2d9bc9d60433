/**
 * A spinner on stderr while a call runs, for a person at a terminal: it appears after a second (a quick call shows
 * nothing), shows the server's progress (progress/total and its message, sanitised) when the server reports it,
 * and is wiped before anything else is written. Nothing at all when stderr is not a terminal.
 */
import type { Backend, Scope } from '../backend/backend.js';
import type { CliIO } from './io.js';
import { sanitizeLine } from './sanitize.js';

export interface Progress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

export interface Activity {
  /** Whether it shows anything (stderr is a terminal): only then is progress worth following. */
  readonly live: boolean;
  /** The server's latest progress notification. */
  progress(update: Progress): void;
  /** Wipes the line; call before writing anything else to the terminal. */
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const IDLE: Activity = { live: false, progress: () => undefined, stop: () => undefined };

/** Starts the spinner for `label` (e.g. "fx.sleep"); `delayMs` before it first shows. */
export function showActivity(io: Pick<CliIO, 'stderr'>, label: string, delayMs = 1000): Activity {
  const stderr = io.stderr as CliIO['stderr'] & { isTTY?: boolean; columns?: number };
  if (stderr.isTTY !== true) return IDLE;
  const started = Date.now();
  let frame = 0;
  let latest: Progress | undefined;
  let drawn = false;
  let stopped = false;
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
    live: true,
    progress(update) {
      // Progress arriving after the result must not draw the line again.
      if (stopped) return;
      latest = update;
      start();
    },
    stop() {
      stopped = true;
      clearTimeout(delay);
      clearInterval(ticker);
      ticker = undefined;
      if (drawn) stderr.write('\r\u001b[2K');
      drawn = false;
    },
  };
}

/**
 * Shows on `activity` the progress the daemon reports for one call: the call sent with `token`, or the task `task`.
 * Follows only when the spinner shows (a pipe gets no stream, no header, nothing). Returns the stop.
 */
export function followProgress(
  backend: Backend,
  activity: Activity,
  match: { token?: string; task?: string },
  scope?: Scope,
): () => void {
  if (!activity.live || !backend.progress || (!match.token && !match.task)) return () => undefined;
  const stop = new AbortController();
  const events = backend.progress({ signal: stop.signal, ...(scope ? { scope } : {}) });
  void (async () => {
    try {
      for await (const event of events) {
        const ours =
          (match.token !== undefined && event.token === match.token) || (match.task !== undefined && event.task === match.task);
        if (ours && typeof event.progress === 'number') activity.progress(event);
      }
    } catch {
      // the stream ended (the call is over, or the daemon went away): the spinner goes on without progress
    }
  })();
  return () => stop.abort();
}

function describe({ progress, total, message }: Progress): string {
  const amount = total !== undefined && total > 0 ? `${num(progress)}/${num(total)} ${bar(progress / total)}` : num(progress);
  const text = message ? ` ${sanitizeLine(message, 120)}` : '';
  return `${amount}${text}`;
}

/** A server's number, short: progress may be fractional. */
function num(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function bar(fraction: number): string {
  const filled = Math.round(Math.max(0, Math.min(1, fraction)) * 10);
  return `[${'#'.repeat(filled)}${'-'.repeat(10 - filled)}]`;
}

/**
 * Says once on a terminal, after `delayMs`, which of `pending` (servers still connecting or answering) it waits for:
 * a server that never answers is named while mcpx waits on it, not minutes later. Returns the stop.
 */
export function sayWaiting(io: Pick<CliIO, 'stderr'>, pending: Set<string>, delayMs = 1000): () => void {
  if ((io.stderr as { isTTY?: boolean }).isTTY !== true) return () => undefined;
  const timer = setTimeout(() => {
    if (pending.size) io.stderr.write(`waiting for ${sanitizeLine([...pending].join(', '))}…\n`);
  }, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
}
