/**
 * The durable host, wired once: store → broker → task store → leases → task runner → held responder → elicitation
 * pipeline → the upstream connections. The Node API (createMcpx({ store })), `mcpx serve` and the daemon only adapt
 * it; the CLI's store backend reads its state (state.ts).
 */
import type { StoreBroker } from '../broker/index.js';
import type { SessionBinding } from '../broker/index.js';
import type { AnsweredBy, Broker, BrokerEvent, Elicitation, PendingFilter, StoredAnswer } from '../broker/index.js';
import type { Answerer } from '../pipeline/pipeline.js';
import type { McpxError } from '../errors.js';
import type { Policy } from '../policy/index.js';
import { releaseHeld } from '../tasks/handoff.js';
import { leaseMsFromEnv } from '../tasks/leases.js';
import type { SessionSource, StartInput, TaskRunner } from '../tasks/runner.js';
import type { TaskHost, TaskRecord, TaskStep } from '../tasks/types.js';
import type { Answer, ElicitHandler } from '../types.js';
import type { Mcpx, McpxOptions } from '../mcpx.js';
import { openChain, type Chain, type PipelineOptions, type RunnerExtras, type Takeover } from './chain.js';
import { createPlainMcpx } from './plain.js';
import { leaseLostError, lostReason, type LeaseVoice } from './lease-lost.js';
import { adoptTask, resultOf, type ResultDeps, type ResultOptions } from './results.js';
import { openHostState, type HostState } from './state.js';

type Env = Record<string, string | undefined>;

/** The connections a session's calls run on. */
type ConnectionsOf = (session: string, sessionSource?: SessionSource) => Promise<TaskHost>;

interface CommonOptions {
  store: HostState['store'];
  /** Close the store with the host (it was opened for it). */
  ownsStore: boolean;
  /** MCPX_LEASE_MS, and what the policy's rules see unless a pipeline is given its own. */
  env: Env;
  /** Names this process on its tasks and its lease (`app-<random>`, `serve-<pid>-<random>`, a daemon's fingerprint). */
  holder: string;
  /** This process on its tasks (default its pid). */
  pid?: number;
  /** This process in lease rows (default `<host>:<pid>:<random>`). */
  instance?: string;
  /** Whose words the LEASE_LOST error speaks. */
  voice: LeaseVoice;
  /** The broker's default question deadline. */
  ttlMs?: number;
  /** What the runner is told beyond the host's own (the daemon's host name, clock, resumable calls, progress). */
  runner?: Omit<RunnerExtras, 'onStop' | 'persist'>;
  /** Hold the lease as a daemon does: recover this holder's calls, take over lapsed holders' (tasks/takeover.ts). */
  takeover?: Takeover;
  /** Hold no lease, even on a shared store (an inline daemon, which ends with its command). */
  unleased?: boolean;
  /** Told of every stop of every call. */
  onStop?: (step: TaskStep) => void;
  /** `on-question`: a call that never asks never touches the store. */
  persist?: 'on-question';
  /** Told once the lease is lost, before the runner stops driving. */
  onLost?: (error: McpxError) => void;
  /** The surface stops the whole host once told the lease is lost (the daemon): the runner is left to that close. */
  surfaceStopsOnLost?: boolean;
  /** Why calls in flight at close fail (unless close is given a reason). */
  closeReason?: string;
  /** Runs at close once the runner stopped, before calls are let go and the connections close. */
  closing?: () => Promise<void>;
  /** Calls still waiting at close stay this holder's (a daemon recovers its own), instead of being let go. */
  keepHeld?: boolean;
  /** The config the calls let go at close name, so whoever resumes them finds their servers. */
  configPath?: string;
}

/** A host whose connections are shared by every session (serve, an app), with a session's own where it has them. */
export interface SharedHostOptions extends CommonOptions {
  /** The upstream connections' options; their onElicit is the host's pipeline, and questions may wait (answerLater). */
  connections: McpxOptions;
  /** Options of the shared connections only, not of those `connect` opens. */
  shared?: Partial<McpxOptions>;
  /** Answers before anyone is asked. */
  policy: Policy;
  /** The session the pipeline opens questions in (else each call's own, stamped by `pipelineBroker`). */
  session?: SessionBinding;
  /** Who may answer after the policy, before the question waits in the store (an app's onElicit). */
  answerers?: Answerer[];
  /** The pipeline applies the policy mode each call's caller chose. */
  callerModes?: boolean;
  /** The broker the pipeline opens questions through (serve stamps each with its call's session). */
  pipelineBroker?: (host: { broker: StoreBroker; runner: TaskRunner; tasks: HostState['tasks'] }) => Broker;
  /** Connections a session's calls run on instead of the shared ones (serve's per-client connections). */
  connectionsOf?: (session: string) => Promise<Mcpx> | undefined;
}

/** A host whose every session brings its own connections, each with its own pipeline (the daemon's pool). */
export interface SessionHostOptions extends CommonOptions {
  connections?: undefined;
  connectionsOf: ConnectionsOf;
}

export type HostOptions = SharedHostOptions | SessionHostOptions;

/** The durable host without shared connections: what the daemon adapts. */
export interface SessionHost {
  readonly broker: StoreBroker;
  readonly state: HostState;
  readonly runner: TaskRunner;
  /** Starts a call the runner holds; resolves at its first stop. Throws LEASE_LOST once the lease is lost. */
  start(input: StartInput): Promise<TaskStep>;
  /** Answers a question asked by any process on the store. */
  answer(questionId: string, answer: Answer, options?: { by?: AnsweredBy }): Promise<StoredAnswer>;
  pending(filter?: PendingFilter): Promise<Elicitation[]>;
  task(id: string): Promise<TaskRecord | undefined>;
  /** The call's stop once it ends, driving a modern call nobody drives any more. */
  result(taskId: string, options?: ResultOptions): Promise<TaskStep>;
  /** Takes over a modern call nobody drives (results.ts): true when this process now drives it. */
  adopt(taskId: string): Promise<boolean>;
  subscribe(listener: (event: BrokerEvent) => void): () => void;
  /** A pipeline for connections of the host's runner: the policy first, then the answerers, then the store. */
  pipeline(options: PipelineOptions): ElicitHandler;
  /**
   * Takes the lease (with `takeover`: waits for it, recovers this holder's calls, adopts lapsed holders'); once.
   * createHost holds a shared host before it connects; a session host's surface holds it once what its sessions'
   * connections need exists.
   */
  hold(): Promise<void>;
  /** Set once this process lost its lease on a shared store: the LEASE_LOST error. */
  readonly lost: McpxError | undefined;
  /** Resolves with the LEASE_LOST error once the lease is lost (never without a shared store). */
  readonly whenLost: Promise<McpxError>;
  close(reason?: string): Promise<void>;
}

export interface Host extends SessionHost {
  /** The shared upstream connections. */
  readonly mcpx: Mcpx;
  /** Opens more upstream connections with the host's pipeline (serve's per-client ones). */
  connect(extra: Partial<McpxOptions>): Promise<Mcpx>;
}

export async function createHost(options: SharedHostOptions): Promise<Host>;
export async function createHost(options: SessionHostOptions): Promise<SessionHost>;
export async function createHost(options: HostOptions): Promise<Host | SessionHost> {
  const { env, holder, voice } = options;
  const leaseMs = leaseMsFromEnv(env);
  const state = openHostState({
    store: options.store,
    ownsStore: options.ownsStore,
    leaseMs,
    ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}),
  });
  const { broker, tasks } = state;
  const leases = state.leases();
  /** Calls this process drove to a question or took over: on close, the modern ones still waiting are let go. */
  const held = new Set<string>();
  const leaseFacts = { holder, leaseMs, store: state.store.kind };
  let lost: McpxError | undefined;
  let onLost: (error: McpxError) => void = () => undefined;
  const whenLost = new Promise<McpxError>((resolve) => (onLost = resolve));
  const connectionsOf: ConnectionsOf =
    options.connections !== undefined
      ? async (session) => (await options.connectionsOf?.(session)) ?? shared!.mcpx
      : options.connectionsOf;
  // On a shared store this process holds a lease, so a call it drove is taken over by another once it dies.
  // Lost (we stalled past it and another process took our calls): we stop driving them, writing nothing over its.
  const chain = openChain({
    broker,
    tasks,
    env,
    holder,
    pid: options.pid ?? process.pid,
    ...(options.instance ? { instance: options.instance } : {}),
    ...(leases && !options.unleased ? { lease: { leases, ttlMs: leaseMs } } : {}),
    connectionsOf,
    runner: {
      ...options.runner,
      onStop: (step) => {
        if (step.status === 'input-required') held.add(step.task.id);
        else held.delete(step.task.id);
        options.onStop?.(step);
      },
      ...(options.persist ? { persist: options.persist } : {}),
    },
    ...(options.takeover ? { takeover: options.takeover } : {}),
    onLost: () => {
      lost = leaseLostError(voice, leaseFacts);
      options.onLost?.(lost);
      if (!options.surfaceStopsOnLost) void runner.close(lostReason(voice), { lost: true });
      onLost(lost);
    },
  });
  const { runner } = chain;
  let holding: Promise<void> | undefined;
  const hold = (): Promise<void> => (holding ??= chain.hold());
  let shared: { mcpx: Mcpx; connect(extra: Partial<McpxOptions>): Promise<Mcpx> } | undefined;
  if (options.connections !== undefined) {
    await hold();
    try {
      shared = await connectShared(options, chain, { broker, runner, tasks });
    } catch (error) {
      await chain.stopLease();
      await state.close();
      throw error;
    }
  }
  const results: ResultDeps = {
    broker,
    tasks,
    runner,
    leases,
    voice,
    lease: leaseFacts,
    lost: () => lost,
    held: (id) => held.add(id),
  };
  return {
    broker,
    state,
    runner,
    ...(shared ? { mcpx: shared.mcpx, connect: shared.connect } : {}),
    async start(input) {
      if (lost) throw lost;
      return runner.start(input);
    },
    async answer(id, answer, answerOptions = {}) {
      const { answer: stored } = await state.respondHeld({
        id,
        action: answer.action,
        ...(answer.action === 'accept' && answer.content !== undefined ? { content: answer.content } : {}),
        by: answerOptions.by ?? 'api',
      });
      return stored;
    },
    pending: (filter = {}) => broker.pending(filter),
    task: (id) => tasks.get(id),
    result: (id, resultOptions) => resultOf(results, id, resultOptions),
    adopt: (id) => adoptTask(results, id),
    subscribe: (listener) => broker.subscribe(listener),
    pipeline: (pipelineOptions) => chain.pipeline(pipelineOptions),
    hold,
    get lost() {
      return lost;
    },
    whenLost,
    async close(reason = options.closeReason) {
      await runner.close(reason);
      await options.closing?.();
      // Modern calls this process was driving are let go: whoever asks for their result next resumes them (unless
      // the lease was lost: they are another process's now, and we write nothing over them).
      if (!lost && !options.keepHeld) await releaseHeld(tasks, held, holder, options.configPath);
      await chain.stopLease();
      await shared?.mcpx.close();
      await state.close();
    },
  };
}

/**
 * The host's pipeline (the policy first, then the host's answerers; unanswered, the question waits in the store for
 * anyone) and the shared connections on it.
 */
async function connectShared(
  options: SharedHostOptions,
  chain: Chain,
  parts: { broker: StoreBroker; runner: TaskRunner; tasks: HostState['tasks'] },
): Promise<{ mcpx: Mcpx; connect(extra: Partial<McpxOptions>): Promise<Mcpx> }> {
  const pipeline = chain.pipeline({
    broker: options.pipelineBroker?.(parts) ?? parts.broker,
    policy: options.policy,
    ...(options.session ? { session: options.session } : {}),
    ...(options.callerModes ? { callerModes: true } : {}),
    ...(options.answerers ? { answerers: options.answerers } : {}),
  });
  const connect = (extra: Partial<McpxOptions>): Promise<Mcpx> =>
    createPlainMcpx({ ...options.connections, ...extra, onElicit: pipeline, answerLater: true });
  return { mcpx: await connect(options.shared ?? {}), connect };
}
