/**
 * Where a command's questions and calls live: the daemon of this config (started on first need for a call),
 * else the state store directly. Only what a path needs is loaded, so a warm `mcpx call` stays a thin client.
 */
import type { BrokerEvent, AuditQuery } from '../../broker/index.js';
import { McpxError } from '../../errors.js';
import { findConfigPath } from '../../config/find.js';
import type { Backend } from '../backend/backend.js';
import { createRestBackend, type DaemonFetch } from '../backend/rest-backend.js';
import { connectDaemon, ensureDaemon, socketFetch } from '../daemon/client.js';
import { daemonPaths, isAlive, readDaemonState } from '../daemon/paths.js';
import { configCheckedBefore, rememberConfigChecked } from './config-checked.js';
import { sayDaemonStarted } from './daemon-started.js';
import type { CliIO } from './io.js';

type Env = Record<string, string | undefined>;

export interface OpenBackendOptions {
  config: string | undefined;
  /** A call needs a daemon to hold it: start one when none runs. Otherwise the store serves when no daemon runs. */
  forCall: boolean;
  /** The server the call goes to: a daemon started for it starts that server first. */
  server?: string;
}

export async function openBackend(io: CliIO, options: OpenBackendOptions): Promise<Backend> {
  const configPath = findConfigPath(options.config, io.cwd, io.env);
  if (options.forCall) {
    const start = async () => {
      // A broken config is reported before anything starts: a daemon would only fail on it, after starting the
      // call's server early. A running daemon read its config when it started, so a warm call skips this, and so
      // does a cold one whose config passed before, as it reads now (config-checked.ts).
      if (configPath && !configCheckedBefore(configPath, io.env, io.cwd)) {
        (await import('../../config/index.js')).loadConfig({ config: configPath, cwd: io.cwd, env: io.env });
        rememberConfigChecked(configPath, io.env, io.cwd);
      }
      return ensureDaemon(io.env, configPath, {
        cwd: io.cwd,
        ...daemonCommand(io.env),
        ...(options.server ? { prewarm: options.server } : {}),
        onStarted: (state) => sayDaemonStarted(io, state.pid, configPath),
      });
    };
    // A warm call skips the health check: it goes straight to the socket the running daemon wrote down, and only
    // if nothing listens there (a stale state file) is a daemon started and the request sent again.
    const state = readDaemonState(daemonPaths(io.env, configPath));
    if (state && isAlive(state.pid)) {
      const direct = socketFetch(state.socket);
      let client: Awaited<ReturnType<typeof start>> | undefined;
      const fetch: DaemonFetch = async (path, init) => {
        if (client) return client.fetch(path, init);
        try {
          return await direct.fetch(path, init);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'ECONNREFUSED' && code !== 'ENOENT') throw error;
          client = await start(); // nothing received the request, so sending it again is safe
          return client.fetch(path, init);
        }
      };
      return createRestBackend({
        fetch,
        inline: () => client?.inline ?? false,
        close: async () => (direct.close(), await client?.close()),
      });
    }
    const client = await start();
    return createRestBackend({ fetch: client.fetch, inline: client.inline, close: () => client.close() });
  }
  const client = await connectDaemon(io.env, configPath);
  if (client) return createRestBackend({ fetch: client.fetch, inline: client.inline, close: () => client.close() });
  const { createStoreBackend } = await import('../backend/store-backend.js');
  return createStoreBackend(io.env, { cwd: io.cwd, ...(configPath ? { configPath } : {}) });
}

/** MCPX_DAEMON_COMMAND (JSON argv) overrides the program started as the daemon, e.g. for a source checkout. */
function daemonCommand(env: Env): { command?: string[] } {
  if (!env.MCPX_DAEMON_COMMAND) return {};
  try {
    const argv = JSON.parse(env.MCPX_DAEMON_COMMAND) as unknown;
    if (Array.isArray(argv) && argv.length && argv.every((a) => typeof a === 'string')) return { command: argv as string[] };
  } catch {
    // fall through to the error below
  }
  throw new McpxError(
    'CONFIG_INVALID',
    'MCPX_DAEMON_COMMAND must be a JSON array of strings, e.g. ["node","dist/cli.js","daemon","run"]',
  );
}

/** The audit log, read from the state store (every process appends to the same one). */
export async function openAudit(
  io: CliIO,
): Promise<{ events(query: AuditQuery): Promise<BrokerEvent[]>; close(): Promise<void> }> {
  const { openStoreBroker, closeStoreBroker } = await import('../backend/store-backend.js');
  const broker = await openStoreBroker(io.env);
  return { events: (query) => broker.audit(query), close: () => closeStoreBroker(broker) };
}
