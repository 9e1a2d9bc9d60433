/**
 * Starting the daemon of a config: `mcpx daemon run` spawned detached, and its first line awaited. Apart from
 * client.ts (whose inline daemon loads the whole host) because a cold `mcpx call` starts it from the bin's one file.
 */
import { closeSync, fchmodSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { McpxError } from '../../errors.js';
import { makePrivateDir } from '../../private-files.js';
import { readDaemonState, type DaemonPaths, type DaemonState } from './paths.js';
import { healthy } from './socket-fetch.js';

type Env = Record<string, string | undefined>;

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
 * Spawns `mcpx daemon run` detached and waits for its first stdout line (`ready <pid>` or `running <pid>`).
 * True when this started the daemon, false when another starter's daemon won the race.
 */
export async function startDaemonProcess(
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
