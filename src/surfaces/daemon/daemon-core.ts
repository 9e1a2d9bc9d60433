/**
 * What a daemon holds, without any socket: the broker, the task runner over a pool of mcpx instances (one per
 * session, each connection pooled by server inside it), and the REST app. `runDaemon` serves it on a socket;
 * the inline mode serves it inside the command.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { serverStatus } from '../../client/index.js';
import type Keyv from 'keyv';
import type { Broker, RespondInput, SessionBinding } from '../../broker/index.js';
import type { Delivered } from '../../tasks/delivery.js';
import type { Policy } from '../../policy/index.js';
import type { WebListenConfig } from '../../config/index.js';
import type { ElicitHandler, Era } from '../../types.js';
import type { SessionSource, TaskRunner } from '../../tasks/runner.js';
import { createTaskStore } from '../../tasks/task-store.js';
import { createProgressHub } from '../../tasks/progress.js';
import { followingRunner } from '../../tasks/follow.js';
import type { Leases } from '../../tasks/leases.js';
import type { TaskHost } from '../../tasks/types.js';
import { createApp, type AppDeps } from '../http/app.js';
import { createWebAuth } from '../http/web/auth.js';
import { createDeviceRegistry } from '../http/web/devices.js';
import { openChain } from '../../host/chain.js';

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
  broker: Broker;
  /** The keyv holding task records: the broker store's own, so any process reading that store sees tasks. */
  taskKeyv: Keyv;
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
  /** With a store the parts opened: how answers reach a held legacy call through its holder (src/host/state.ts). */
  respondHeld?: (input: RespondInput) => Promise<Delivered>;
  /** On a store several hosts share: the holder leases, and how long one lasts unrenewed (MCPX_LEASE_MS). */
  lease?: { leases: Leases; ttlMs: number };
  /** The largest REST request body taken (bytes; default 1 MiB): MCPX_DAEMON_MAX_BODY. */
  maxBodyBytes?: number;
  /** The config's `web` block: the listener for paired devices the daemon opens at start (cert/key absolute paths). */
  web?: WebListenConfig;
  /** Releases the store and anything else the parts opened (after the hosts are closed). */
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
  /** With `parts.lease`: this process in lease rows (`<host>:<pid>:<random>`), and what to do once another daemon took ours. */
  instance?: string;
  ownerGone?: (owner: string) => boolean;
  onLeaseLost?: () => void;
  log?: (line: string) => void;
}

export interface DaemonCore {
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
    if (stale && stamps.get(session) !== stamp && runner.active(session) <= asking) {
      // The config changed and only the call asking now is in flight (it has not connected yet): start afresh.
      hosts.delete(session);
      void stale.then((h) => h.close()).catch(() => undefined);
    }
    let host = hosts.get(session);
    if (!host) {
      host = parts.openHost(session, sessionSource, (pipeline) => chain.pipeline({ ...pipeline, callerModes: true }));
      hosts.set(session, host);
      stamps.set(session, stamp);
      // A session whose instance failed to open may try again on its next call.
      host.catch(() => hosts.delete(session));
    }
    return host;
  };
  const tasks = createTaskStore(parts.taskKeyv);
  const leased = parts.lease && !options.inline;
  const { respondHeld } = parts;
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
  // Several daemons on one store: ours once we hold our holder's lease; the lapsed ones' calls are adopted.
  const chain = openChain({
    broker: parts.broker,
    tasks,
    holder: options.holder,
    pid: options.pid,
    instance: options.instance ?? `${hostname()}:${options.pid}:${randomBytes(4).toString('hex')}`,
    ...(leased ? { lease: parts.lease } : {}),
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
  });
  const { runner } = chain;
  await chain.hold();
  const following = followingRunner(runner, {
    tasks,
    leases: parts.lease?.leases,
    serves,
  });
  const info = { pid: options.pid, version: options.version, startedAt };
  const web = createWebAuth({ clock: now });
  // Paired devices live in the state store, so a restarted daemon still knows them.
  const devices = createDeviceRegistry(parts.taskKeyv, now);
  const sweep = async (): Promise<string[]> => {
    const idle = [...hosts.keys()].filter(
      (session) => runner.active(session) === 0 && now() - (lastUsed.get(session) ?? 0) >= sessionIdleMs,
    );
    for (const session of idle) {
      const host = hosts.get(session)!;
      hosts.delete(session);
      lastUsed.delete(session);
      await host.then((h) => h.close()).catch(() => undefined);
    }
    return idle;
  };
  const sweeper = setInterval(() => void sweep(), Math.min(sessionIdleMs, 60_000));
  sweeper.unref();
  return {
    runner,
    startedAt,
    sessions: () => [...hosts.keys()],
    sweep,
    app: (token, appOptions) =>
      createApp({
        broker: parts.broker,
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
        ...(respondHeld ? { respondHeld } : {}),
        ...(parts.maxBodyBytes !== undefined ? { maxBodyBytes: parts.maxBodyBytes } : {}),
      }),
    async close(reason) {
      clearInterval(sweeper);
      await runner.close(reason);
      // After the runner saved its modern calls resumable: a survivor adopts them once the lease lapses.
      await chain.stopLease();
      const opened = await Promise.allSettled(hosts.values());
      await Promise.allSettled(opened.map((h) => (h.status === 'fulfilled' ? h.value.close() : undefined)));
      hosts.clear();
      await parts.close();
    },
  };
}
