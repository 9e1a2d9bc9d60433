/**
 * Where a daemon lives on disk: one per user (the state dir) and config (a fingerprint of the config file's path).
 *   <stateDir>/daemon-<fp>.sock   the unix socket (0600)
 *   <stateDir>/daemon-<fp>.json   its state: pid, socket, optional TCP port and bearer token (0600)
 *   <stateDir>/daemon-<fp>.lock   held while a daemon starts and runs, so two starters don't race
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stateDir } from '../../paths.js';

type Env = Record<string, string | undefined>;

export interface DaemonPaths {
  fingerprint: string;
  /** The config file the daemon serves (absolute), or undefined for no config. */
  configPath?: string;
  socket: string;
  state: string;
  lock: string;
  log: string;
}

/** What a running daemon writes for its clients. */
export interface DaemonState {
  pid: number;
  version: string;
  startedAt: number;
  socket: string;
  configPath?: string;
  /** Loopback TCP port, when enabled; its requests need `Authorization: Bearer <token>`. */
  port?: number;
  token?: string;
  /** The web inbox's listener for paired devices, when open: the address they open and the one it listens on. */
  remote?: { url: string; listen: string };
  /** The config's listener for paired devices that did not open at start, and why (the rest of the daemon runs). */
  remoteError?: { listen: string; message: string };
}

/** Unix socket paths are limited to ~107 bytes; a longer state dir puts the socket in the temp dir instead. */
const MAX_SOCKET_PATH = 100;

export function daemonFingerprint(configPath: string | undefined): string {
  return createHash('sha256')
    .update(configPath ? resolve(configPath) : '(no config)')
    .digest('hex')
    .slice(0, 16);
}

export function daemonPaths(env: Env, configPath: string | undefined): DaemonPaths {
  const dir = stateDir(env);
  const fingerprint = daemonFingerprint(configPath);
  let socket = join(dir, `daemon-${fingerprint}.sock`);
  if (socket.length > MAX_SOCKET_PATH) {
    const dirHash = createHash('sha256').update(dir).digest('hex').slice(0, 8);
    socket = join(tmpdir(), `mcpx-${dirHash}-${fingerprint}.sock`);
  }
  return {
    fingerprint,
    ...(configPath ? { configPath: resolve(configPath) } : {}),
    socket,
    state: daemonStateFile(env, fingerprint),
    lock: join(dir, `daemon-${fingerprint}.lock`),
    log: join(dir, `daemon-${fingerprint}.log`),
  };
}

/** The state file of the daemon whose config has this fingerprint (a task's holder names its daemon so). */
export function daemonStateFile(env: Env, fingerprint: string): string {
  return join(stateDir(env), `daemon-${fingerprint}.json`);
}

export function readDaemonState(paths: Pick<DaemonPaths, 'state'>): DaemonState | undefined {
  try {
    return JSON.parse(readFileSync(paths.state, 'utf8')) as DaemonState;
  } catch {
    return undefined;
  }
}

/** The state of every daemon of this user (one per config) that wrote one, live or not: `daemon status|stop --all`. */
export function listDaemonStates(env: Env): DaemonState[] {
  let files: string[];
  try {
    files = readdirSync(stateDir(env)).filter((file) => /^daemon-[0-9a-f]{16}\.json$/.test(file));
  } catch {
    return [];
  }
  return files.flatMap((file) => readDaemonState({ state: join(stateDir(env), file) }) ?? []);
}

/** Whether a pid names a live process: the core's probe, under the name the daemon's callers use. */
export { processAlive as isAlive } from '../../local/process-alive.js';
