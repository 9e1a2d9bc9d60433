/**
 * The sinks that send: a webhook POST (signed, retried with backoff, given up after a bound), a command with the
 * JSON on stdin, a desktop notification (notify-send, osascript). Each returns what happened; none ever throws.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { CommandSink, WebhookSink } from '../../config/index.js';
import {
  DEFAULT_ATTEMPT_MS,
  retryDelays,
  SIGNATURE_HEADER,
  signatureOf,
  slackBodyOf,
  summaryOf,
  type NotifyPayload,
} from '../../notify/index.js';
import { redact } from '../../secrets/redact.js';

export type Outcome =
  | { kind: 'sent'; attempts: number; status?: number; signed?: boolean }
  | { kind: 'failed'; attempts: number; reason: string }
  | { kind: 'skipped'; reason: string };

/** Waits `ms` unless `stopped` aborts first (then resolves false). */
type Pause = (ms: number) => Promise<boolean>;

/** Why a send still running when its process stopped failed: the failure is recorded before the process goes. */
const STOPPED = 'stopped: the process sending it was stopping';

export interface WebhookOptions {
  /** The signing key, when the sink has one (undefined: sent unsigned). */
  secret?: string | undefined;
  pause: Pause;
  /** Retry delays; default the sink's `retries` (retryDelays). */
  delays?: readonly number[];
  /** Aborted when the process stops: a try still waiting for its receiver ends, as failed. */
  signal?: AbortSignal;
}

export async function sendWebhook(sink: WebhookSink, payload: NotifyPayload, options: WebhookOptions): Promise<Outcome> {
  const body = redact(JSON.stringify(sink.format === 'slack' ? slackBodyOf(payload) : payload));
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'mcpx-notify' };
  if (options.secret !== undefined) headers[SIGNATURE_HEADER] = signatureOf(body, options.secret);
  const delays = options.delays ?? retryDelays(sink.retries);
  let reason = '';
  for (let attempt = 1; attempt <= delays.length + 1; attempt++) {
    if (attempt > 1 && !(await options.pause(delays[attempt - 2]!))) return { kind: 'failed', attempts: attempt - 1, reason };
    try {
      const timeout = AbortSignal.timeout(sink.timeoutMs ?? DEFAULT_ATTEMPT_MS);
      const response = await fetch(sink.webhook, {
        method: 'POST',
        headers,
        body,
        signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) return { kind: 'sent', attempts: attempt, status: response.status, signed: options.secret !== undefined };
      reason = `the receiver answered HTTP ${response.status}`;
      // A refusal that trying again cannot change (bad request, gone, unauthorised) is not retried.
      if (response.status < 500 && response.status !== 408 && response.status !== 429)
        return { kind: 'failed', attempts: attempt, reason };
    } catch (error) {
      if (options.signal?.aborted) return { kind: 'failed', attempts: attempt, reason: STOPPED };
      reason = fetchFailure(error, sink.timeoutMs ?? DEFAULT_ATTEMPT_MS);
    }
  }
  return { kind: 'failed', attempts: delays.length + 1, reason };
}

function fetchFailure(error: unknown, timeoutMs: number): string {
  const err = error as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = err.cause?.code ?? err.cause?.message;
  return redact(cause ? `${err.message} (${cause})` : err.message);
}

/** How long a command sink may run before it is stopped. */
const COMMAND_MS = 15_000;

/** Runs the command with the JSON on stdin; `signal` (the process stopping) stops one still running, as failed. */
export function runCommand(sink: CommandSink, payload: NotifyPayload, signal?: AbortSignal): Promise<Outcome> {
  const [program, ...args] = sink.command;
  return new Promise((resolve) => {
    let stderr = '';
    let settled = false;
    const done = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', cut);
      resolve(outcome);
    };
    const child = spawn(program!, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    const stopWith = (reason: string) => (): void => {
      child.kill('SIGTERM');
      done({ kind: 'failed', attempts: 1, reason });
    };
    const timer = setTimeout(stopWith(`still running after ${COMMAND_MS / 1000} s: stopped`), COMMAND_MS);
    timer.unref();
    const cut = stopWith(STOPPED);
    if (signal?.aborted) cut();
    else signal?.addEventListener('abort', cut, { once: true });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr = (stderr + chunk).slice(-500)));
    child.on('error', (error) => done({ kind: 'failed', attempts: 1, reason: `could not start ${program}: ${error.message}` }));
    child.on('close', (code, signal) => {
      if (code === 0) return done({ kind: 'sent', attempts: 1 });
      const said = stderr.trim() ? `: ${redact(stderr.trim()).slice(0, 300)}` : '';
      done({ kind: 'failed', attempts: 1, reason: `${program} exited ${code ?? signal}${said}` });
    });
    // A command that does not read its stdin closes it early: that is its business, not a failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(redact(JSON.stringify(payload)) + '\n');
  });
}

/** The program that shows a notification on this machine, if there is one. */
export function desktopProgram(
  platform: NodeJS.Platform,
  path: string | undefined,
): { program: string; args: (title: string, body: string) => string[] } | undefined {
  const found = (name: string): boolean => (path ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, name)));
  if (platform === 'darwin' && found('osascript'))
    return {
      program: 'osascript',
      args: (title, body) => ['-e', `display notification ${appleString(body)} with title ${appleString(title)}`],
    };
  if (platform === 'linux' && found('notify-send'))
    return { program: 'notify-send', args: (title, body) => ['--app-name=mcpx', title, body] };
  return undefined;
}

export function showDesktop(
  payload: NotifyPayload,
  platform: NodeJS.Platform,
  path: string | undefined,
  signal?: AbortSignal,
): Promise<Outcome> {
  const program = desktopProgram(platform, path);
  if (!program)
    return Promise.resolve({
      kind: 'skipped',
      reason: platform === 'linux' ? 'no notify-send on PATH' : `no desktop notifications on ${platform}`,
    });
  const { title, body } = summaryOf(payload);
  return runCommand({ command: [program.program, ...program.args(title, redact(body))], name: 'desktop' }, payload, signal);
}

/** A string literal of AppleScript: quotes and backslashes escaped. */
function appleString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
