/**
 * What `mcpx serve` holds, whatever the wire: the upstream connections (one mcpx instance), the broker over the
 * shared state store (so `mcpx elicit list` and REST in other processes see and answer the same questions), the
 * task runner that keeps each call going while its questions wait, and the catalogue of served tool names.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createBroker } from '../../broker/index.js';
import { createElicitationPipeline } from '../../pipeline/pipeline.js';
import { openStoreFromEnv } from '../../broker/index.js';
import type { Broker, ElicitRequest, RespondInput } from '../../broker/index.js';
import { heldResponder, type Delivered } from '../../tasks/delivery.js';
import { createFileEraCache } from '../../client/index.js';
import { McpxError } from '../../errors.js';
import { createMcpx, DEFAULT_ELICIT_TTL_MS, type Mcpx } from '../../mcpx.js';
import { stateDir } from '../../paths.js';
import { loadConfig } from '../../config/index.js';
import { ttlFromEnv, type Policy } from '../../policy/index.js';
import { createTaskRunner, type TaskRunner } from '../../tasks/runner.js';
import { createTaskStore, type TaskStore } from '../../tasks/task-store.js';
import { canTakeOver, isModernRound, isReleased, newInstance, processHolderGone, releaseHeld } from '../../tasks/handoff.js';
import { leaseMsFromEnv, openLeases } from '../../tasks/leases.js';
import type { TaskStep } from '../../tasks/types.js';
import type { CallNotifications } from '../../client/index.js';
import type { ServerRequestForwarding } from '../../client/index.js';
import { listCatalog, type Catalog } from './catalog.js';
import type { ToolRef } from './names.js';
import { requestStateKey, type RequestStateKey } from './request-state.js';
import { createOwnConnections } from './own-connections.js';
import { callRoute, type CallRoute } from './passthrough.js';
import { keepServeLease, leaseLostFor, LOST_REASON } from './lease-lost.js';
import { createResourceWatchers } from './resource-watchers.js';

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

/** A stop of a call (a round of questions, or the end), numbered per task so a waiter knows what is new. */
export interface Stop {
  seq: number;
  step: TaskStep;
}

export interface ServeCore {
  readonly broker: Broker;
  readonly runner: TaskRunner;
  readonly tasks: TaskStore;
  readonly ttlMs: number;
  /** What request states are signed with: MCPX_SERVE_STATE_KEY, else the store's (shared by every serve on it). */
  readonly stateKey: RequestStateKey;
  /** The session of a connection that names none: MCPX_SESSION_ID, else one made for this process. */
  readonly defaultSession: string;
  catalog(): Promise<Catalog>;
  /** Lists the upstreams again on the next catalog() (their lists change: tools/list_changed, a late registration). */
  refresh(): void;
  /** Which configured servers are served. */
  serverNames(): string[];
  /** Starts a tool call (or, with `method`, a prompts/get or resources/read) that the runner holds. */
  call(
    session: string,
    ref: ToolRef,
    args: Record<string, unknown>,
    method?: 'prompts/get' | 'resources/read',
    notifications?: CallNotifications,
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
   * Set once this serve lost its lease (lease-lost.ts): the LEASE_LOST error. `whenLost` resolves with it then (never
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

/** Opened questions kept for their first stop; a bound, in case a stop never comes. */
const MAX_OPENED = 1000;
/** How long a finished call that asked keeps its last stop here, for mcpx_call_result. */
const FINISHED_KEPT_MS = 30 * 60_000;

function ttlOf(env: Env, policy: Policy): number {
  return policy.ttlMs ?? ttlFromEnv(env.MCPX_ELICIT_TTL_MS, DEFAULT_ELICIT_TTL_MS);
}

export async function createServeCore(options: ServeCoreOptions): Promise<ServeCore> {
  const { env, cwd, configPath } = options;
  const loaded = loadConfig({ config: configPath ?? { mcpServers: {} }, cwd, env });
  const { policy } = loaded;
  const ttlMs = ttlOf(env, policy);
  const store = await openStoreFromEnv(env);
  const broker = createBroker({ store, allowAnySession: true, ttlMs });
  const tasks = createTaskStore(store.keyv);
  const stateKey = await requestStateKey(env, store.keyv);
  const fromEnv = env.MCPX_SESSION_ID?.trim();
  const defaultSession = fromEnv || `mcp-${randomBytes(8).toString('hex')}`;

  const holder = `serve-${process.pid}-${randomBytes(4).toString('hex')}`;
  // On a shared store this serve holds a lease like a daemon: once it lapses (SIGKILL), others take its calls over.
  const leases = openLeases(store);
  const instance = newInstance();
  // Lost (we stalled past it and another took our calls): we stop driving them, and refuse new ones (lease-lost.ts).
  const lost = (): void => {
    // Its calls are driven elsewhere now: their stops come from the store (held-elsewhere.ts); a waiter here is told.
    for (const [id, stop] of stops) if (stop.step.status === 'input-required') stops.delete(id);
    for (const wake of [...waiters.values()].flatMap((set) => [...set])) wake();
    void runner.close(LOST_REASON, { lost: true });
    if (lease?.lost) onLost(lease.lost);
  };
  let onLost: (error: McpxError) => void = () => undefined;
  const whenLost = new Promise<McpxError>((resolve) => (onLost = resolve));
  const leaseMs = leaseMsFromEnv(env);
  const lease = leases ? await keepServeLease(leases, { holder, leaseMs, instance, store: store.kind, onLost: lost }) : undefined;
  /** Calls this process drove to a question: on close, the modern ones still waiting are let go for others to resume. */
  const asked = new Set<string>();
  const stops = new Map<string, Stop>();
  const waiters = new Map<string, Set<() => void>>();
  /** Questions opened here and not yet put to a client, by id (a policy's answer or the call's end drops them). */
  const opened = new Map<string, ElicitRequest>();
  /** The notification route of each call that asked and goes on, by task. */
  const routes = new Map<string, CallRoute>();
  /** When each finished call's last stop goes (insertion order is expiry order): swept, not a timer per call. */
  const keptUntil = new Map<string, number>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, until] of keptUntil) {
      if (until > now) break;
      keptUntil.delete(id);
      stops.delete(id);
    }
  }, 60_000).unref();
  const onStop = (step: TaskStep): void => {
    const id = step.task.id;
    const finished = step.status !== 'input-required';
    if (finished) routes.delete(id);
    for (const [question, request] of opened)
      if (request.task === id && !step.task.waitingOn.includes(question)) opened.delete(question);
    if (finished) asked.delete(id);
    else asked.add(id);
    stops.set(id, { seq: (stops.get(id)?.seq ?? 0) + 1, step });
    for (const wake of waiters.get(id) ?? []) wake();
    // A finished call's last stop stays readable for a while (mcpx_call_result), then goes.
    if (finished) keptUntil.set(id, Date.now() + FINISHED_KEPT_MS);
  };

  // Questions belong to the session of the call that asked: the task holding the call names the session.
  const sessionStamping: Broker = {
    ...broker,
    openRequest: async (input) => {
      // The runner knows a call it drives before its task is stored (it is stored as the question opens).
      const taskId = input.task ?? runner.taskOfCall(input.trace);
      const session = runner.sessionOfCall(input.trace) ?? (taskId ? (await tasks.get(taskId))?.session : undefined);
      const sessionSource: ElicitRequest['sessionSource'] = session === fromEnv ? 'env' : 'explicit';
      const request = await broker.openRequest(session === undefined ? input : { ...input, session, sessionSource });
      if (request.state === 'pending') {
        if (opened.size >= MAX_OPENED) opened.delete(opened.keys().next().value as string);
        opened.set(request.id, request);
      }
      return request;
    },
  };

  const watchers = createResourceWatchers((server, uri, on) => mcpx.subscribe(server, uri, on));
  const own = createOwnConnections((forward) => createMcpx({ ...upstreams, forward }));
  const runner = createTaskRunner({
    broker,
    store: tasks,
    host: async (session) => (session !== undefined ? own.of(session) : undefined) ?? mcpx,
    holder,
    pid: process.pid,
    // Its tasks name its lease, so an answerer can tell it died (its legacy answers are refused then: tasks/delivery.ts).
    ...(leases ? { instance } : {}),
    onStop,
    // A call that never asks never touches the store: its caller is right here, waiting for its stop.
    persist: 'on-question',
  });
  // The runner's host is read only when a call starts, after this is set.
  const upstreams = {
    loaded,
    cwd,
    env,
    // Policy first; a question it leaves open waits in the broker, where the MCP client, the CLI or REST answer it.
    onElicit: createElicitationPipeline({ broker: sessionStamping, policy, env }),
    answerLater: true,
    // URL mode is declared upstream: a url question goes to a client that declared url mode, else waits for a
    // person (CLI, REST, web inbox). Whoever accepts it has opened the page; mcpx serve has no browser of its own.
    openUrl: async () => true,
    elicitTtlMs: ttlMs,
    eraCache: createFileEraCache(join(stateDir(env), 'era-cache.json')),
    clientInfo: { name: 'mcpx-serve', version: options.version },
  };
  const mcpx: Mcpx = await createMcpx({
    ...upstreams,
    onResourceUpdated: (server, uri) => watchers.updated(server, uri),
  });

  const configured = mcpx.serverNames();
  const unknown = (options.servers ?? []).filter((s) => !configured.includes(s));
  if (unknown.length) {
    await lease?.stop();
    await mcpx.close();
    await broker.close();
    await store.close();
    throw new McpxError(
      'SERVER_NOT_FOUND',
      `no server named ${unknown.map((s) => `"${s}"`).join(', ')}; configured: ${configured.join(', ') || 'none'}${configPath ? ` (config: ${configPath})` : ''}`,
      {
        data: { servers: unknown, known: configured },
      },
    );
  }
  const served = options.servers?.length ? [...new Set(options.servers)] : configured;

  let listing: Promise<Catalog> | undefined;
  const catalog = (): Promise<Catalog> =>
    (listing ??= (async () => {
      const listed = await listCatalog(mcpx, served, options.reserved);
      // A server that failed is listed again on the next tools/list.
      if (listed.failed.size) listing = undefined;
      return listed;
    })());

  const nextStop = (taskId: string, afterSeq: number, signal?: AbortSignal): Promise<Stop> =>
    new Promise<Stop>((resolve, reject) => {
      const check = (): boolean => {
        const stop = stops.get(taskId);
        if ((!stop || stop.seq <= afterSeq) && !lease?.lost) return false;
        done();
        if (stop && stop.seq > afterSeq) resolve(stop);
        else reject(lease!.lost);
        return true;
      };
      const abort = (): void => {
        done();
        reject(signal?.reason ?? new McpxError('CALL_FAILED', 'the request was cancelled'));
      };
      const done = (): void => {
        waiters.get(taskId)?.delete(wake);
        signal?.removeEventListener('abort', abort);
      };
      const wake = (): void => void check();
      if (check()) return;
      let set = waiters.get(taskId);
      if (!set) waiters.set(taskId, (set = new Set()));
      set.add(wake);
      signal?.addEventListener('abort', abort, { once: true });
    });

  return {
    broker,
    runner,
    tasks,
    ttlMs,
    stateKey,
    defaultSession,
    mcpx,
    catalog,
    refresh: () => void (listing = undefined),
    serverNames: () => served,
    async call(session, ref, args, method, notifications) {
      if (lease?.lost) throw lease.lost;
      // Always routed (even when this request wants nothing): a retry after a question may want them.
      const route = callRoute(notifications);
      const step = await runner.start({
        server: ref.server,
        tool: ref.tool,
        ...(method ? { method } : {}),
        notifications: route,
        arguments: args,
        session,
        sessionSource: session === fromEnv ? 'env' : 'explicit',
      });
      const stop = stops.get(step.task.id) ?? { seq: 1, step };
      if (stop.step.status === 'input-required') routes.set(step.task.id, route);
      else if (stop.seq === 1) {
        // Finished without asking: its id went to nobody, so nobody will ask for it again; this request has it.
        stops.delete(step.task.id);
        keptUntil.delete(step.task.id);
      }
      return stop;
    },
    notifyTo: (taskId, notifications) => routes.get(taskId)?.to(notifications),
    holdNotifications: (taskId) => routes.get(taskId)?.hold(),
    nextStop,
    respondHeld: heldResponder(broker, leaseMs),
    latestStop: (taskId) => stops.get(taskId),
    watchResource: (server, uri, onUpdate) => watchers.watch(server, uri, onUpdate),
    ownConnections: (session, forward) => own.hold(session, forward),
    takeOpened(id) {
      const request = opened.get(id);
      opened.delete(id);
      return request;
    },
    get lost() {
      return lease?.lost;
    },
    whenLost,
    async adopt(taskId) {
      const task = await tasks.get(taskId);
      if (lease?.lost) {
        // Not ours to drive any more; nobody drives it (let go, or its holder, this process, lost its lease): say so.
        if (isReleased(task) || (isModernRound(task) && (await processHolderGone(task, leases))))
          throw leaseLostFor(lease.lost, taskId);
        return false;
      }
      // Let go, or its serve died: exactly one process wins the claim and resumes it.
      if (!task || !(await canTakeOver(task, leases)) || !(await tasks.claim(task))) return false;
      // Its first stop here arrives through onStop, like any call's; a failure to resume is a failed stop too.
      void runner.adopt(task).catch(() => undefined);
      return true;
    },
    async close() {
      clearInterval(sweep);
      await runner.close('mcpx serve stopped');
      await own.close();
      // The client is gone, but a modern call's questions stay answerable (mcpx elicit, REST) until their deadline:
      // whoever asks for its result next (mcpx task result, another serve's mcpx_call_result) resumes it.
      // Unless the lease was lost: its calls are another process's to take, and we write nothing over them.
      if (!lease?.lost) await releaseHeld(tasks, asked, holder, loaded.path);
      await lease?.stop();
      await mcpx.close();
      await broker.close();
      await store.close();
    },
  };
}
