/**
 * How the CLI reaches its daemon: over the unix socket, with a fetch-like client. `ensureDaemon` starts one on
 * first need (detached, so calls outlive the command) and waits for it to say it is ready.
 */
import { isMcpxError, McpxError } from '../../errors.js';
import { daemonPaths, isAlive, readDaemonState, type DaemonPaths, type DaemonState } from './paths.js';
import { MCPX_VERSION } from '../../constants.js';
import { healthy, socketFetch, type DaemonResponse } from './socket-fetch.js';
import { startDaemonProcess, type EnsureDaemonOptions } from './start.js';

export { nothingListens, socketFetch, type DaemonFetch, type DaemonResponse } from './socket-fetch.js';
export { defaultDaemonCommand, type EnsureDaemonOptions } from './start.js';

type Env = Record<string, string | undefined>;

export interface DaemonClient {
  /** true when the daemon runs inside this command (daemon.inline): calls end with it. */
  readonly inline: boolean;
  readonly state?: DaemonState;
  /** `fetch` with a path (`/v1/call/fx/ask_form`) against the daemon. */
  fetch(path: string, init?: RequestInit): Promise<DaemonResponse>;
  close(): Promise<void>;
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
