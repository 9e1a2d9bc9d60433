/**
 * What `mcpx serve` holds, whatever the wire: the upstream connections (one mcpx instance), the broker over the
 * shared state store (so `mcpx elicit list` and REST in other processes see and answer the same questions), the
 * task runner that keeps each call going while its questions wait, and the catalogue of served tool names.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { openStoreFromEnv } from '../../broker/index.js';
import type { Broker, ElicitRequest, RespondInput } from '../../broker/index.js';
import type { Delivered } from '../../tasks/delivery.js';
import { createFileEraCache } from '../../client/index.js';
import { McpxError } from '../../errors.js';
import { DEFAULT_ELICIT_TTL_MS, type Mcpx } from '../../mcpx.js';
import { stateDir } from '../../paths.js';
import { loadConfig, type LoadedConfig } from '../../config/index.js';
import { ttlFromEnv, type Policy } from '../../policy/index.js';
import type { TaskRunner } from '../../tasks/runner.js';
import type { TaskStore } from '../../tasks/task-store.js';
import type { CallNotifications } from '../../client/index.js';
import type { ServerRequestForwarding } from '../../client/index.js';
import { createHost, type Host } from '../../host/host.js';
import { listCatalog, type Catalog } from './catalog.js';
import type { ToolRef } from './names.js';
import { requestStateKey, type RequestStateKey } from './request-state.js';
import { createOwnConnections } from './own-connections.js';
import { callRoute } from './passthrough.js';
import { createResourceWatchers } from './resource-watchers.js';
import { createStops, type Stop, type Stops } from './stops.js';

type Env = Record<string, string | undefined>;

export type { Catalog };

export interface ServeCoreOptions {
  env: Env;
  cwd: string;
  /** The config file; absent: no servers. */
  configPath?: string;
  /** Serve only these configured servers (default: all). */
  servers?: string[];
  version: string;
  /** Names mcpx serves itself, kept away from upstream tools. */
  reserved: ReadonlySet<string>;
}

export type { Stop };

export interface ServeCore {
  readonly broker: Broker;
  readonly runner: TaskRunner;
  readonly tasks: TaskStore;
  readonly ttlMs: number;
  /** How long a task client's call may take before it becomes a task: MCPX_SERVE_TASK_GRACE_MS, else 250 ms. */
  readonly taskGraceMs: number;
  /** What request states are signed with: MCPX_SERVE_STATE_KEY, else the store's (shared by every serve on it). */
  readonly stateKey: RequestStateKey;
  /** The session of a connection that names none: MCPX_SESSION_ID, else one made for this process. */
  readonly defaultSession: string;
  catalog(): Promise<Catalog>;
  /** Lists the upstreams again on the next catalog() (their lists change: tools/list_changed, a late registration). */
  refresh(): void;
  /** Which configured servers are served. */
  serverNames(): string[];
  /**
   * Starts a tool call (or, with `method`, a prompts/get or resources/read) that the runner holds. `task`: as an MCP
   * task upstream (a task client's call of a task tool), or never (a client that did not declare tasks gets -32021).
   */
  call(
    session: string,
    ref: ToolRef,
    args: Record<string, unknown>,
    options?: { method?: 'prompts/get' | 'resources/read'; notifications?: CallNotifications; task?: boolean },
  ): Promise<Stop>;
  /**
   * Where a call this process drives sends its progress and log messages from now on: a retry's request (a modern
   * client re-sends the call with its answers). No effect on a call held elsewhere, or over.
   */
  notifyTo(taskId: string, notifications: CallNotifications | undefined): void;
  /** The modern request waiting on the call was answered with its questions: keep the call's notifications for the retry. */
  holdNotifications(taskId: string): void;
  /** The first stop of the task after `afterSeq` (resolves at once when there is one). */
  nextStop(taskId: string, afterSeq: number, signal?: AbortSignal): Promise<Stop>;
  latestStop(taskId: string): Stop | undefined;
  /**
   * A question this process just opened, as it stored it, once: the first stop that asks it needs no read of the
   * store (an answer landing meanwhile is seen as one landing after a read would be: the retry finds it answered).
   */
  takeOpened(id: string): ElicitRequest | undefined;
  /**
   * Takes over a modern call another process let go (its client went away) or whose serve died: true when this
   * process won the claim and now drives it (its next stop comes through nextStop), false when it is not ours to
   * take (held, finished, legacy, unknown, or another process won).
   */
  adopt(taskId: string): Promise<boolean>;
  /**
   * Set once this serve lost its lease (src/host/lease-lost.ts): the LEASE_LOST error. `whenLost` resolves with it then (never
   * without a shared store). A call nobody drives any more is then not ours to take: `adopt` throws it instead.
   */
  readonly lost: McpxError | undefined;
  readonly whenLost: Promise<McpxError>;
  /** Answers as any answerer in another process would: a held legacy call's holder passes it on (tasks/delivery.ts). */
  respondHeld(input: RespondInput): Promise<Delivered>;
  /**
   * Calls `onUpdate` whenever the server says the resource changed; the upstream is subscribed for the first watcher
   * and unsubscribed after the last (its one connection serves every client). Resolves with the unwatch.
   */
  watchResource(server: string, uri: string, onUpdate: () => void): Promise<() => Promise<void>>;
  /**
   * A legacy upstream's connection declares its capabilities once, at initialize, and the shared one serves every
   * client: it declares neither sampling nor roots. A session whose client declared them gets connections of its own
   * (opened as its calls need them), declaring what it declared, whose `sampling/createMessage` and `roots/list` go
   * to `forward`: that client alone. Its calls run on them until the release (the client's connection closed). Undefined
   * when another connection already holds the session.
   */
  ownConnections(session: string, forward: ServerRequestForwarding): (() => Promise<void>) | undefined;
  /** The upstream connections (for prompts and resources). */
  readonly mcpx: Mcpx;
  close(): Promise<void>;
}

/** A quick call is answered as it always was; one still running after this is handed out as a task. */
function taskGraceOf(env: Env): number {
  const text = env.MCPX_SERVE_TASK_GRACE_MS?.trim();
  if (!text) return 250;
  const ms = Number(text);
  if (!Number.isFinite(ms) || ms < 0)
    throw new McpxError('CONFIG_INVALID', `MCPX_SERVE_TASK_GRACE_MS must be a number of milliseconds, e.g. 250 (got "${text}")`, {
      data: { variable: 'MCPX_SERVE_TASK_GRACE_MS' },
    });
  return ms;
}

function ttlOf(env: Env, policy: Policy): number {
  return policy.ttlMs ?? ttlFromEnv(env.MCPX_ELICIT_TTL_MS, DEFAULT_ELICIT_TTL_MS);
}

/**
 * The broker the pipeline opens questions through: each question belongs to the session of the call that asked
 * (the task holding the call names it), and one opened here is kept for its first stop.
 */
function sessionStamping(
  { broker, runner, tasks }: { broker: Broker; runner: TaskRunner; tasks: TaskStore },
  fromEnv: string | undefined,
  stops: Stops,
): Broker {
  return {
    ...broker,
    openRequest: async (input) => {
      // The runner knows a call it drives before its task is stored (it is stored as the question opens).
      const taskId = input.task ?? runner.taskOfCall(input.trace);
      const session = runner.sessionOfCall(input.trace) ?? (taskId ? (await tasks.get(taskId))?.session : undefined);
      const sessionSource: ElicitRequest['sessionSource'] = session === fromEnv ? 'env' : 'explicit';
      const request = await broker.openRequest(session === undefined ? input : { ...input, session, sessionSource });
      if (request.state === 'pending') stops.opened(request);
      return request;
    },
  };
}

interface ServeHost {
  host: Host;
  watchers: ReturnType<typeof createResourceWatchers>;
  own: ReturnType<typeof createOwnConnections>;
}

/** The durable host of a serve: a lease like a daemon's on a shared store, the upstreams, calls that ask stored. */
async function openServeHost(options: ServeCoreOptions, loaded: LoadedConfig, stops: Stops): Promise<ServeHost> {
  const { env, cwd } = options;
  const ttlMs = ttlOf(env, loaded.policy);
  const fromEnv = env.MCPX_SESSION_ID?.trim();
  const watchers = createResourceWatchers((server, uri, on) => host.mcpx.subscribe(server, uri, on));
  const own = createOwnConnections((forward) => host.connect({ forward }));
  const host: Host = await createHost({
    store: await openStoreFromEnv(env),
    ownsStore: true,
    env,
    holder: `serve-${process.pid}-${randomBytes(4).toString('hex')}`,
    voice: 'serve',
    policy: loaded.policy,
    ttlMs,
    // Policy first; a question it leaves open waits in the broker, where the MCP client, the CLI or REST answer it.
    pipelineBroker: (parts) => sessionStamping(parts, fromEnv, stops),
    connections: {
      loaded,
      cwd,
      env,
      // URL mode is declared upstream: a url question goes to a client that declared url mode, else waits for a
      // person (CLI, REST, web inbox). Whoever accepts it has opened the page; mcpx serve has no browser of its own.
      openUrl: async () => true,
      elicitTtlMs: ttlMs,
      eraCache: createFileEraCache(join(stateDir(env), 'era-cache.json')),
      clientInfo: { name: 'mcpx-serve', version: options.version },
    },
    shared: { onResourceUpdated: (server, uri) => watchers.updated(server, uri) },
    connectionsOf: (session) => own.of(session),
    onStop: (step) => stops.record(step),
    // A call that never asks never touches the store: its caller is right here, waiting for its stop.
    persist: 'on-question',
    // Lost (we stalled past it and another took our calls): we stop driving them, and refuse new ones.
    onLost: () => {
      process.stderr.write(
        `mcpx serve: another process took over our calls (our lease lapsed while we were paused): running no more calls; restart this server\n`,
      );
      stops.lost();
    },
    closeReason: 'mcpx serve stopped',
    closing: () => own.close(),
    // The client is gone, but a modern call's questions stay answerable (mcpx elicit, REST) until their deadline:
    // whoever asks for its result next (mcpx task result, another serve's mcpx_call_result) resumes it.
    ...(loaded.path ? { configPath: loaded.path } : {}),
  });
  return { host, watchers, own };
}

/** Refuses servers the config does not name. */
function servedOf(options: ServeCoreOptions, configured: string[]): string[] {
  const unknown = (options.servers ?? []).filter((s) => !configured.includes(s));
  if (unknown.length)
    throw new McpxError(
      'SERVER_NOT_FOUND',
      `no server named ${unknown.map((s) => `"${s}"`).join(', ')}; configured: ${configured.join(', ') || 'none'}${options.configPath ? ` (config: ${options.configPath})` : ''}`,
      {
        data: { servers: unknown, known: configured },
      },
    );
  return options.servers?.length ? [...new Set(options.servers)] : configured;
}

export async function createServeCore(options: ServeCoreOptions): Promise<ServeCore> {
  const { env, cwd, configPath } = options;
  const loaded = loadConfig({ config: configPath ?? { mcpServers: {} }, cwd, env });
  const fromEnv = env.MCPX_SESSION_ID?.trim();
  const defaultSession = fromEnv || `mcp-${randomBytes(8).toString('hex')}`;
  const stops = createStops(() => host.lost);
  const { host, watchers, own } = await openServeHost(options, loaded, stops);
  const { broker, runner, mcpx } = host;
  let served: string[];
  let stateKey: RequestStateKey;
  try {
    served = servedOf(options, mcpx.serverNames());
    stateKey = await requestStateKey(env, host.state.store.keyv);
  } catch (error) {
    stops.close();
    await host.close();
    throw error;
  }

  let listing: Promise<Catalog> | undefined;
  const catalog = (): Promise<Catalog> =>
    (listing ??= (async () => {
      const listed = await listCatalog(mcpx, served, options.reserved);
      // A server that failed is listed again on the next tools/list.
      if (listed.failed.size) listing = undefined;
      return listed;
    })());

  return {
    broker,
    runner,
    tasks: host.state.tasks,
    ttlMs: ttlOf(env, loaded.policy),
    taskGraceMs: taskGraceOf(env),
    stateKey,
    defaultSession,
    mcpx,
    catalog,
    refresh: () => void (listing = undefined),
    serverNames: () => served,
    async call(session, ref, args, { method, notifications, task } = {}) {
      // Always routed (even when this request wants nothing): a retry after a question may want them.
      const route = callRoute(notifications);
      const step = await host.start({
        server: ref.server,
        tool: ref.tool,
        ...(method ? { method } : {}),
        ...(task !== undefined ? { task } : {}),
        notifications: route,
        arguments: args,
        session,
        sessionSource: session === fromEnv ? 'env' : 'explicit',
      });
      return stops.started(step, route);
    },
    notifyTo: (taskId, notifications) => stops.route(taskId)?.to(notifications),
    holdNotifications: (taskId) => stops.route(taskId)?.hold(),
    nextStop: (taskId, afterSeq, signal) => stops.next(taskId, afterSeq, signal),
    respondHeld: host.state.respondHeld,
    latestStop: (taskId) => stops.latest(taskId),
    watchResource: (server, uri, onUpdate) => watchers.watch(server, uri, onUpdate),
    ownConnections: (session, forward) => own.hold(session, forward),
    takeOpened: (id) => stops.takeOpened(id),
    get lost() {
      return host.lost;
    },
    whenLost: host.whenLost,
    adopt: (taskId) => host.adopt(taskId),
    async close() {
      stops.close();
      await host.close();
    },
  };
}
