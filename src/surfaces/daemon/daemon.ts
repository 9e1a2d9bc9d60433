/**
 * The daemon process: serves the REST app on a unix socket (0600, no auth) and optionally on a loopback TCP port
 * (bearer token), holds connections and in-flight calls, and stops when idle. One per user and config: a lock
 * file holding the pid (lock.ts) keeps a second daemon from starting beside a live one.
 */
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { McpxError } from '../../errors.js';
import { writePrivateFile } from '../../private-files.js';
import { newBearerToken } from '../bearer.js';
import { ownerExited } from '../../tasks/handoff.js';
import { acquireLock, releaseLock } from './lock.js';
import { createDaemonCore, type DaemonCore, type DaemonParts } from './daemon-core.js';
import { remoteListener } from './remote.js';
import type { DaemonPaths, DaemonState } from './paths.js';

export interface RunDaemonOptions {
  paths: DaemonPaths;
  openParts: () => Promise<DaemonParts>;
  version: string;
  /** Stop after this long with no call in flight, no open connection and no request. Default 10 minutes; 0 = never. */
  idleMs?: number;
  /** Also listen on 127.0.0.1:<port> (0 = a free port) with a bearer token. */
  port?: number;
  /**
   * Another daemon took our lease (we stalled past it) and adopted our calls: by default the daemon stops; the
   * `mcpx daemon run` process exits at once instead, as if it had died, so it writes nothing more.
   */
  onLeaseLost?: () => void;
  /** Told once the daemon listens (or that another one already runs). */
  onReady?: (state: DaemonState) => void;
  log?: (line: string) => void;
}

export interface RunningDaemon {
  state: DaemonState;
  core: DaemonCore;
  /** Resolves once the daemon has stopped (idle, stop(), or a signal handled by the caller). */
  stopped: Promise<void>;
  stop(reason?: string): Promise<void>;
}

export const DEFAULT_IDLE_MS = 10 * 60_000;

/** Keeps idle client sockets longer than a CLI command lives, so a reused socket is rarely closed under it. */
function serve(listener: ReturnType<typeof getRequestListener>): Server {
  const server = createServer(listener);
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 35_000;
  return server;
}

function listen(server: Server, target: string | number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = (): void => {
      server.off('error', reject);
      resolve();
    };
    if (typeof target === 'string') server.listen(target, done);
    else server.listen(target, '127.0.0.1', done);
  });
}

/** Nobody else may connect to the socket: create it 0600 (umask), then make sure. */
async function listenOwnerOnly(server: Server, socket: string): Promise<void> {
  const umask = process.umask(0o177);
  try {
    await listen(server, socket);
  } finally {
    process.umask(umask);
  }
  chmodSync(socket, 0o600);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Starts a daemon in this process. Throws DAEMON_UNAVAILABLE when another live daemon holds the lock. */
export async function runDaemon(options: RunDaemonOptions): Promise<RunningDaemon> {
  const { paths } = options;
  const log = options.log ?? (() => undefined);
  const lock = acquireLock(paths.lock);
  if (!lock.ok) {
    throw new McpxError(
      'DAEMON_UNAVAILABLE',
      `A daemon for this config already runs (pid ${lock.holder}); use it, or stop it with: mcpx daemon stop`,
      { data: { pid: lock.holder } },
    );
  }
  const servers: Server[] = [];
  let core: DaemonCore | undefined;
  let stopOnLost: (() => Promise<void>) | undefined;
  try {
    const parts = await options.openParts();
    core = await createDaemonCore({
      parts,
      version: options.version,
      pid: process.pid,
      holder: paths.fingerprint,
      // A lease of this host's whose process is gone (a daemon killed here before us) is taken at once.
      ownerGone: ownerExited,
      onLeaseLost: () => (options.onLeaseLost ? options.onLeaseLost() : void stopOnLost?.()),
      log,
    });
    let lastActivity = Date.now();
    const touch = <T extends (...args: any[]) => unknown>(listener: T): T =>
      ((...args: unknown[]) => {
        lastActivity = Date.now();
        return listener(...args);
      }) as T;

    const state: DaemonState = {
      pid: process.pid,
      version: options.version,
      startedAt: core.startedAt,
      socket: paths.socket,
      ...(paths.configPath ? { configPath: paths.configPath } : {}),
    };
    // It holds the loopback port's bearer token.
    const writeState = (): void => writePrivateFile(paths.state, JSON.stringify(state, null, 2) + '\n');
    let opening: Promise<number> | undefined;
    // The loopback port with its bearer token: at start with --port, or later on request; once.
    const openPort = (port: number): Promise<number> =>
      (opening ??= (async () => {
        const token = newBearerToken();
        const tcpServer = serve(touch(getRequestListener(core!.app(token).fetch)));
        await listen(tcpServer, port);
        servers.push(tcpServer);
        state.port = (tcpServer.address() as AddressInfo).port;
        state.token = token;
        writeState();
        log(`listening on 127.0.0.1:${state.port}`);
        return state.port;
      })().catch((error: unknown) => {
        opening = undefined;
        throw error;
      }));

    // The web inbox for phones, on the address the config's `web` or `mcpx elicit web --pair --listen` names.
    const remote = remoteListener({
      app: (access) => core!.app(undefined, { remote: access }),
      wrap: touch,
      opened: ({ url, listen, server }) => {
        servers.push(server);
        state.remote = { url, listen };
        writeState();
        log(`listening for paired devices on ${listen} (${url})`);
      },
      failed: ({ listen, message }) => {
        state.remoteError = { listen, message };
        writeState();
        log(`not listening for paired devices on ${listen} (the config's "web"): ${message}`);
      },
    });

    rmSync(paths.socket, { force: true });
    // The web inbox's sign-in opens the loopback port on first need (`mcpx elicit web` against a daemon without one).
    const socketServer = serve(
      touch(getRequestListener(core.app(undefined, { openPort: () => openPort(0), openRemote: remote.open }).fetch)),
    );
    servers.push(socketServer);
    await listenOwnerOnly(socketServer, paths.socket);
    log(`listening on ${paths.socket}`);
    if (options.port !== undefined) await openPort(options.port);
    else writeState();
    // The config's listener for paired devices: a bad one is logged and shown by `mcpx daemon status`, not fatal.
    if (parts.web) await remote.openConfigured(parts.web);

    let resolveStopped!: () => void;
    const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
    let stopping: Promise<void> | undefined;
    const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    const openConnections = async (): Promise<number> => {
      const counts = await Promise.all(
        servers.map((s) => new Promise<number>((resolve) => s.getConnections((_e, n) => resolve(n ?? 0)))),
      );
      return counts.reduce((a, b) => a + b, 0);
    };
    const idleTimer =
      idleMs > 0
        ? setInterval(
            () => {
              void (async () => {
                // A daemon paired devices reach stays up: a phone cannot start it again.
                if (stopping || state.remote || core!.runner.active() > 0 || Date.now() - lastActivity < idleMs) return;
                if ((await openConnections()) > 0) return;
                await stop(`idle for ${Math.round(idleMs / 1000)}s`);
              })();
            },
            Math.min(idleMs, 5_000),
          )
        : undefined;
    idleTimer?.unref();

    const stop = (reason = 'stopped'): Promise<void> => {
      stopping ??= (async () => {
        log(`stopping: ${reason}`);
        if (idleTimer) clearInterval(idleTimer);
        await Promise.all(servers.map(closeServer));
        await core!.close(`the daemon holding the call stopped (${reason})`);
        rmSync(paths.socket, { force: true });
        try {
          if ((JSON.parse(readFileSync(paths.state, 'utf8')) as DaemonState).pid === process.pid)
            rmSync(paths.state, { force: true });
        } catch {
          // No state file left.
        }
        releaseLock(paths.lock);
        resolveStopped();
      })();
      return stopping;
    };
    // Another daemon took our lease (we stalled past it) and adopted our calls: two must never drive one call.
    stopOnLost = () => stop('another daemon took over its calls (its lease lapsed)');
    options.onReady?.(state);
    return { state, core, stopped, stop };
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    await core?.close().catch(() => undefined);
    releaseLock(paths.lock);
    throw error;
  }
}
