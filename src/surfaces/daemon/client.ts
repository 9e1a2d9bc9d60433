/**
 * How the CLI reaches its daemon: over the unix socket, with a fetch-like client. `ensureDaemon` starts one on
 * first need (detached, so calls outlive the command) and waits for it to say it is ready.
 */
import { openSync, closeSync, fchmodSync } from 'node:fs';
import { dirname } from 'node:path';
import { isMcpxError, McpxError } from '../../errors.js';
import { daemonPaths, isAlive, readDaemonState, type DaemonPaths, type DaemonState } from './paths.js';
import { MCPX_VERSION } from '../../constants.js';
import { makePrivateDir } from '../../private-files.js';
import { socketFetch, type DaemonResponse } from './socket-fetch.js';

export { nothingListens, socketFetch, type DaemonFetch, type DaemonResponse } from './socket-fetch.js';

type Env = Record<string, string | undefined>;

export interface DaemonClient {
  /** true when the daemon runs inside this command (daemon.inline): calls end with it. */
  readonly inline: boolean;
  readonly state?: DaemonState;
  /** `fetch` with a path (`/v1/call/fx/ask_form`) against the daemon. */
  fetch(path: string, init?: RequestInit): Promise<DaemonResponse>;
  close(): Promise<void>;
}

async function healthy(socket: string): Promise<boolean> {
  const { fetch, close } = socketFetch(socket);
  try {
    const response = await fetch('/v1/health', { signal: AbortSignal.timeout(2_000) });
    await response.text();
    return response.ok;
  } catch {
    return false;
  } finally {
    close();
  }
}

/** A client for the daemon of this config if one is up; undefined otherwise (never starts one). */
export async function connectDaemon(env: Env, configPath: string | undefined): Promise<DaemonClient | undefined> {
  const paths = daemonPaths(env, configPath);
  const state = readDaemonState(paths);
  if (!state || !isAlive(state.pid) || !(await healthy(state.socket))) return undefined;
  return clientOf(state);
}

function clientOf(state: DaemonState): DaemonClient {
  const { fetch, close } = socketFetch(state.socket);
  return { inline: false, state, fetch, close: async () => close() };
}

export interface EnsureDaemonOptions {
  /** The argv that runs `mcpx daemon run` (default: MCPX_DAEMON_COMMAND, else this same program). The config and idle flags are appended. */
  command?: string[];
  cwd?: string;
  /** How long to wait for a new daemon to be ready. Default 15 s. */
  timeoutMs?: number;
  /** Passed to the daemon: stop after this long idle. */
  idleMs?: number;
  /** Passed to the daemon: also listen on 127.0.0.1:<port> (0 = a free one) with a bearer token. */
  port?: number;
  /** When no daemon can start, run it inside this command (default true). */
  inlineFallback?: boolean;
  /** Passed to a daemon this starts: the server the first call goes to, started while the daemon loads. */
  prewarm?: string;
  /** Told when this call started a daemon (not when it found one running), so a surface can say so. */
  onStarted?: (state: DaemonState) => void;
}

/** The argv that runs `mcpx daemon run`: MCPX_DAEMON_COMMAND (JSON argv), else this same program (dist/cli.js, or a tsx-run source entry). */
export function defaultDaemonCommand(env: Env = process.env): string[] {
  if (env.MCPX_DAEMON_COMMAND) {
    try {
      const argv = JSON.parse(env.MCPX_DAEMON_COMMAND) as unknown;
      if (Array.isArray(argv) && argv.length && argv.every((a) => typeof a === 'string')) return argv as string[];
    } catch {
      // reported below
    }
    throw new McpxError(
      'CONFIG_INVALID',
      'MCPX_DAEMON_COMMAND must be a JSON array of strings, e.g. ["node","dist/cli.js","daemon","run"]',
    );
  }
  const entry = process.argv[1];
  if (!entry)
    throw new McpxError('DAEMON_UNAVAILABLE', 'Cannot tell which program to start as the daemon; run `mcpx daemon start` first.');
  return [process.execPath, ...process.execArgv, entry, 'daemon', 'run'];
}

/**
 * Connects to the daemon of this config, starting it when none runs. When none can run (MCPX_DAEMON=inline, or
 * starting one fails and `inlineFallback` is not false), the daemon runs inside this command instead
 * (daemon.inline): calls then end with the command, and `inline` says so.
 */
export async function ensureDaemon(
  env: Env,
  configPath: string | undefined,
  options: EnsureDaemonOptions = {},
): Promise<DaemonClient> {
  if (env.MCPX_DAEMON === 'inline') return inlineDaemon(env, configPath, options.cwd ?? process.cwd(), 'MCPX_DAEMON=inline');
  const existing = await connectDaemon(env, configPath);
  if (existing) return existing;
  const paths = daemonPaths(env, configPath);
  try {
    const started = await startDaemonProcess(paths, env, configPath, options);
    // A daemon that has just said `ready` listens already and wrote its state: no health check to wait for.
    const state = started ? readDaemonState(paths) : undefined;
    const client = state ? clientOf(state) : await connectDaemon(env, configPath);
    if (!client)
      throw new McpxError('DAEMON_UNAVAILABLE', `The daemon started but does not answer on ${paths.socket}; see ${paths.log}.`);
    if (started && client.state) options.onStarted?.(client.state);
    return client;
  } catch (error) {
    if (options.inlineFallback === false || !isMcpxError(error, 'DAEMON_UNAVAILABLE')) throw error;
    return inlineDaemon(env, configPath, options.cwd ?? process.cwd(), error.message);
  }
}

/** The daemon's app inside this process (daemon.inline): no socket, and calls end when `close()` runs. */
export async function inlineDaemon(
  env: Env,
  configPath: string | undefined,
  cwd: string,
  reason: string,
): Promise<DaemonClient & { reason: string }> {
  const [{ createDaemonCore }, { openDaemonParts }] = await Promise.all([
    import('./daemon-core.js'),
    import('./daemon-wiring.js'),
  ]);
  const version = MCPX_VERSION;
  // No notifications: the question ends with this command, and only its terminal's prompt could answer it.
  const parts = await openDaemonParts({ env, cwd, ...(configPath ? { configPath } : {}), version, notify: false });
  // Its own holder: an inline run never recovers (or abandons) the calls of the config's real daemon.
  const core = await createDaemonCore({ parts, version, pid: process.pid, holder: `inline-${process.pid}`, inline: true });
  const app = core.app();
  return {
    inline: true,
    reason,
    fetch: async (path, init) => app.request(path, init),
    close: () => core.close('the command that held the call inline exited'),
  };
}

/**
 * Spawns `mcpx daemon run` detached and waits for its first stdout line (`ready <pid>` or `running <pid>`).
 * True when this started the daemon, false when another starter's daemon won the race.
 */
async function startDaemonProcess(
  paths: DaemonPaths,
  env: Env,
  configPath: string | undefined,
  options: EnsureDaemonOptions,
): Promise<boolean> {
  const [program, ...args] = options.command ?? defaultDaemonCommand(env);
  if (!program) throw new McpxError('DAEMON_UNAVAILABLE', 'The daemon command is empty.');
  if (configPath) args.push('--config', configPath);
  if (options.idleMs !== undefined) args.push('--idle', String(Math.round(options.idleMs / 1000)));
  if (options.port !== undefined) args.push('--port', String(options.port));
  if (options.prewarm !== undefined) args.push('--prewarm', options.prewarm);
  makePrivateDir(dirname(paths.log));
  const logFd = openSync(paths.log, 'a', 0o600);
  // A log an older mcpx created 0644 (it holds what the daemon's servers print) is closed on the next start.
  fchmodSync(logFd, 0o600);
  const timeoutMs = options.timeoutMs ?? 15_000;
  try {
    // Loaded here: only a command that starts the daemon spawns anything, and a warm call skips its cost.
    const { spawn } = await import('node:child_process');
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: { ...env } as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['ignore', 'pipe', logFd],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(
        () =>
          reject(new McpxError('DAEMON_UNAVAILABLE', `The daemon did not get ready within ${timeoutMs} ms; see ${paths.log}.`)),
        timeoutMs,
      );
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const newline = buffered.indexOf('\n');
        if (newline >= 0) {
          clearTimeout(timer);
          resolve(buffered.slice(0, newline));
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new McpxError('DAEMON_UNAVAILABLE', `Cannot start the daemon (${program}): ${error.message}`, { cause: error }));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new McpxError('DAEMON_UNAVAILABLE', `The daemon exited (code ${code}) before it was ready; see ${paths.log}.`));
      });
    });
    child.removeAllListeners('exit');
    child.stdout!.destroy();
    child.unref();
    if (line.startsWith('running ')) {
      // Another starter won the race: wait for its daemon to answer.
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const state = readDaemonState(paths);
        if (state && (await healthy(state.socket))) return false;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new McpxError(
        'DAEMON_UNAVAILABLE',
        `Another daemon (${line.slice(8)}) holds the lock but does not answer; see ${paths.log}.`,
      );
    }
    if (!line.startsWith('ready '))
      throw new McpxError('DAEMON_UNAVAILABLE', `The daemon said "${line}" instead of ready; see ${paths.log}.`);
    return true;
  } finally {
    closeSync(logFd);
  }
}

/** Stops the daemon of this config (SIGTERM; it abandons legacy questions and leaves modern ones resumable). */
export async function stopDaemon(
  env: Env,
  configPath: string | undefined,
  options: { timeoutMs?: number } = {},
): Promise<{ stopped: boolean; pid?: number }> {
  const paths = daemonPaths(env, configPath);
  const state = readDaemonState(paths);
  if (!state || !isAlive(state.pid)) return { stopped: false };
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (isAlive(state.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (isAlive(state.pid))
    throw new McpxError(
      'DAEMON_UNAVAILABLE',
      `The daemon (pid ${state.pid}) did not stop within ${options.timeoutMs ?? 10_000} ms.`,
    );
  return { stopped: true, pid: state.pid };
}

export interface DaemonStatus {
  running: boolean;
  paths: DaemonPaths;
  state?: DaemonState;
  health?: { pid: number; version: string; startedAt: number; activeCalls: number };
}

export async function daemonStatus(env: Env, configPath: string | undefined): Promise<DaemonStatus> {
  const paths = daemonPaths(env, configPath);
  const client = await connectDaemon(env, configPath);
  if (!client) return { running: false, paths };
  try {
    const response = await client.fetch('/v1/health');
    return {
      running: true,
      paths,
      ...(client.state ? { state: client.state } : {}),
      health: (await response.json()) as NonNullable<DaemonStatus['health']>,
    };
  } finally {
    await client.close();
  }
}
