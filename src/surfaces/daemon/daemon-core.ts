/**
 * What a daemon holds, without any socket: the durable host (src/host) over the parts' store, its task runner over
 * a pool of mcpx instances (one per session, each connection pooled by server inside it), and the REST app.
 * `runDaemon` serves it on a socket; the inline mode serves it inside the command.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { serverStatus } from '../../client/index.js';
import type { BrokerStore, SessionBinding, StoreBroker } from '../../broker/index.js';
import type { Policy } from '../../policy/index.js';
import type { WebListenConfig } from '../../config/index.js';
import type { ElicitHandler, Era } from '../../types.js';
import type { SessionSource, TaskRunner } from '../../tasks/runner.js';
import { createProgressHub } from '../../tasks/progress.js';
import { followingRunner } from '../../tasks/follow.js';
import type { TaskHost } from '../../tasks/types.js';
import { createApp, type AppDeps } from '../http/app.js';
import { createWebAuth } from '../http/web/auth.js';
import { createDeviceRegistry } from '../http/web/devices.js';
import { createHost } from '../../host/host.js';

/** What a session's pipeline answers by: its instance's policy (the config read again) and its session. */
export interface SessionPipeline {
  policy?: Policy;
  session: SessionBinding;
  /** What the policy's rules see. */
  env?: Record<string, string | undefined>;
}

/** An mcpx instance the daemon can close when it stops; its tool listing serves `GET /v1/servers/{server}/tools`. */
export type PooledHost = TaskHost & {
  close(): Promise<void>;
  serverNames(): string[];
  listTools(server: string): Promise<Tool[]>;
  era(server: string): Promise<Era>;
  listPrompts(server: string): Promise<Prompt[]>;
  listResources(server: string): Promise<Resource[]>;
  listResourceTemplates(server: string): Promise<ResourceTemplate[]>;
};

export interface DaemonParts {
  /** Where questions, task records, leases and paired devices live; the daemon's host opens and closes it. */
  store: BrokerStore;
  /** The broker's default question deadline. */
  ttlMs?: number;
  /** The daemon's environment: MCPX_LEASE_MS (how long a lease lasts unrenewed, and an answer waits for a receipt). */
  env: Record<string, string | undefined>;
  /** Told the host's broker once it is open, before any session's instance opens (notifications, the OAuth client). */
  opened?(broker: StoreBroker): void;
  /**
   * A new mcpx instance for a session; its onElicit is `pipeline` (the host's: the policy, then the broker, applying
   * the policy mode each call's caller chose), built with the instance's policy and session.
   */
  openHost(
    session: string,
    sessionSource: SessionSource,
    pipeline: (options: SessionPipeline) => ElicitHandler,
  ): Promise<PooledHost>;
  /** The session of a call whose request names none. */
  defaultSession: string;
  /** Changes when the config changes; a session with nothing in flight then gets a fresh instance on its next call. */
  configStamp?(): string;
  /** The largest REST request body taken (bytes; default 1 MiB): MCPX_DAEMON_MAX_BODY. */
  maxBodyBytes?: number;
  /** The config's `web` block: the listener for paired devices the daemon opens at start (cert/key absolute paths). */
  web?: WebListenConfig;
  /** Releases what the parts opened besides the store (after the sessions' instances are closed). */
  close(): Promise<void>;
}

export interface DaemonCoreOptions {
  parts: DaemonParts;
  version: string;
  pid: number;
  /** The daemon's config fingerprint: recovery after a restart only touches this daemon's tasks. */
  holder: string;
  inline?: boolean;
  clock?: () => number;
  /** A session's mcpx instance (and its server connections) closes after this long with no call of its. Default 10 minutes. */
  sessionIdleMs?: number;
  /** On a shared store: this process in lease rows (`<host>:<pid>:<random>`), and what to do once another daemon took ours. */
  instance?: string;
  ownerGone?: (owner: string) => boolean;
  onLeaseLost?: () => void;
  log?: (line: string) => void;
}

export interface DaemonCore {
  /** The host's broker, over the parts' store. */
  broker: StoreBroker;
  runner: TaskRunner;
  /** The REST app; with a token, every request must carry it (the loopback TCP port). */
  app(token?: string, options?: Pick<AppDeps, 'openPort' | 'openRemote' | 'remote'>): ReturnType<typeof createApp>;
  /** Sessions with an open mcpx instance. */
  sessions(): string[];
  /** Closes the instances of sessions with no call in flight and none started for `sessionIdleMs` (runs every minute). */
  sweep(): Promise<string[]>;
  startedAt: number;
  close(reason?: string): Promise<void>;
}

export async function createDaemonCore(options: DaemonCoreOptions): Promise<DaemonCore> {
  const { parts } = options;
  const now = options.clock ?? Date.now;
  const startedAt = now();
  const hosts = new Map<string, Promise<PooledHost>>();
  const lastUsed = new Map<string, number>();
  const sessionIdleMs = options.sessionIdleMs ?? 10 * 60_000;
  const stamps = new Map<string, string>();
  // `asking`: calls of the session in flight that have not connected yet (a new call counts itself; a listing does not).
  const hostFor = (session: string, sessionSource: SessionSource = 'explicit', asking = 1): Promise<PooledHost> => {
    lastUsed.set(session, now());
    const stamp = parts.configStamp?.() ?? '';
    const stale = hosts.get(session);
    if (stale && stamps.get(session) !== stamp && host.runner.active(session) <= asking) {
      // The config changed and only the call asking now is in flight (it has not connected yet): start afresh.
      hosts.delete(session);
      void stale.then((h) => h.close()).catch(() => undefined);
    }
    let pooled = hosts.get(session);
    if (!pooled) {
      pooled = parts.openHost(session, sessionSource, (pipeline) => host.pipeline({ ...pipeline, callerModes: true }));
      hosts.set(session, pooled);
      stamps.set(session, stamp);
      // A session whose instance failed to open may try again on its next call.
      pooled.catch(() => hosts.delete(session));
    }
    return pooled;
  };
  const progress = createProgressHub({ pid: options.pid, clock: now });
  // Tool lists come from the default session's instance: its connections are the ones calls without a session use.
  const listing = () => hostFor(parts.defaultSession, 'explicit', 0);
  const catalog = {
    serverNames: async () => (await listing()).serverNames(),
    listTools: async (server: string) => (await listing()).listTools(server),
    status: async (server: string) => serverStatus(await listing(), server),
    listPrompts: async (server: string) => (await listing()).listPrompts(server),
    listResources: async (server: string) => (await listing()).listResources(server),
    listResourceTemplates: async (server: string) => (await listing()).listResourceTemplates(server),
  };
  const serves = async (server: string): Promise<boolean> => (await catalog.serverNames()).includes(server);
  const closeSessions = async (): Promise<void> => {
    const opened = await Promise.allSettled(hosts.values());
    await Promise.allSettled(opened.map((h) => (h.status === 'fulfilled' ? h.value.close() : undefined)));
    hosts.clear();
  };
  // Several daemons on one store: ours once we hold our holder's lease; the lapsed ones' calls are adopted.
  const host = await createHost({
    store: parts.store,
    ownsStore: true,
    env: parts.env,
    ...(parts.ttlMs !== undefined ? { ttlMs: parts.ttlMs } : {}),
    holder: options.holder,
    pid: options.pid,
    instance: options.instance ?? `${hostname()}:${options.pid}:${randomBytes(4).toString('hex')}`,
    voice: 'daemon',
    // An inline daemon ends with its command: it holds no lease for others to take its calls over.
    ...(options.inline ? { unleased: true } : {}),
    connectionsOf: hostFor,
    runner: {
      hostName: hostname(),
      clock: now,
      resumable: !options.inline,
      onProgress: progress.publish,
    },
    takeover: {
      ...(options.ownerGone ? { ownerGone: options.ownerGone } : {}),
      serves,
      ...(options.log ? { log: options.log } : {}),
    },
    onLost: () => options.onLeaseLost?.(),
    surfaceStopsOnLost: true,
    // A resumable runner saved its modern calls for this holder: this daemon, restarted, or a survivor adopts them.
    keepHeld: true,
    // Once the runner stopped, before the lease: the sessions' instances, then what the parts opened.
    closing: async () => {
      await closeSessions();
      await parts.close();
    },
  });
  // Held only once the parts stand on its broker: recovering and taking over calls opens sessions' instances (hostFor).
  parts.opened?.(host.broker);
  await host.hold();
  const { runner, state } = host;
  const leases = state.leases();
  const following = followingRunner(runner, { tasks: state.tasks, leases, serves });
  const info = { pid: options.pid, version: options.version, startedAt };
  const web = createWebAuth({ clock: now });
  // Paired devices live in the state store, so a restarted daemon still knows them.
  const devices = createDeviceRegistry(state.store.keyv, now);
  const sweep = async (): Promise<string[]> => {
    const idle = [...hosts.keys()].filter(
      (session) => runner.active(session) === 0 && now() - (lastUsed.get(session) ?? 0) >= sessionIdleMs,
    );
    for (const session of idle) {
      const pooled = hosts.get(session)!;
      hosts.delete(session);
      lastUsed.delete(session);
      await pooled.then((h) => h.close()).catch(() => undefined);
    }
    return idle;
  };
  const sweeper = setInterval(() => void sweep(), Math.min(sessionIdleMs, 60_000));
  sweeper.unref();
  return {
    broker: host.broker,
    runner,
    startedAt,
    sessions: () => [...hosts.keys()],
    sweep,
    app: (token, appOptions) =>
      createApp({
        broker: host.broker,
        // Waiting on a call let go by its asker (or whose serve died) takes it over; one driven elsewhere is followed.
        tasks: following,
        info,
        defaultSession: parts.defaultSession,
        ...(token ? { token } : {}),
        ...(options.inline ? { inline: true } : {}),
        clock: now,
        catalog,
        web,
        devices,
        progress,
        ...(appOptions?.openPort ? { openPort: appOptions.openPort } : {}),
        ...(appOptions?.openRemote ? { openRemote: appOptions.openRemote } : {}),
        ...(appOptions?.remote ? { remote: appOptions.remote } : {}),
        respondHeld: state.respondHeld,
        ...(parts.maxBodyBytes !== undefined ? { maxBodyBytes: parts.maxBodyBytes } : {}),
      }),
    async close(reason) {
      clearInterval(sweeper);
      await host.close(reason);
    },
  };
}
