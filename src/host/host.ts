/**
 * The durable host, wired once: store → broker → task store → leases → task runner → held responder → elicitation
 * pipeline → the upstream connections. The Node API (createMcpx({ store })) and `mcpx serve` only adapt it; the
 * daemon and the CLI's store backend stand on its state (state.ts).
 */
import type { StoreBroker } from '../broker/index.js';
import type { SessionBinding } from '../broker/index.js';
import type { AnsweredBy, Broker, BrokerEvent, Elicitation, PendingFilter, StoredAnswer } from '../broker/index.js';
import type { Answerer } from '../pipeline/pipeline.js';
import type { McpxError } from '../errors.js';
import type { Policy } from '../policy/index.js';
import { releaseHeld } from '../tasks/handoff.js';
import { leaseMsFromEnv } from '../tasks/leases.js';
import type { StartInput, TaskRunner } from '../tasks/runner.js';
import type { TaskRecord, TaskStep } from '../tasks/types.js';
import type { Answer } from '../types.js';
import type { Mcpx, McpxOptions } from '../mcpx.js';
import { openChain } from './chain.js';
import { createPlainMcpx } from './plain.js';
import { leaseLostError, lostReason, type LeaseVoice } from './lease-lost.js';
import { adoptTask, resultOf, type ResultDeps, type ResultOptions } from './results.js';
import { openHostState, type HostState } from './state.js';

type Env = Record<string, string | undefined>;

export interface HostOptions {
  store: HostState['store'];
  /** Close the store with the host (it was opened for it). */
  ownsStore: boolean;
  env: Env;
  /** Names this process on its tasks and its lease (`app-<random>`, `serve-<pid>-<random>`). */
  holder: string;
  /** Whose words the LEASE_LOST error speaks. */
  voice: LeaseVoice;
  /** Answers before anyone is asked. */
  policy: Policy;
  /** The broker's default question deadline. */
  ttlMs?: number;
  /** The upstream connections' options; their onElicit is the host's pipeline, and questions may wait (answerLater). */
  connections: McpxOptions;
  /** Options of the shared connections only, not of those `connect` opens. */
  shared?: Partial<McpxOptions>;
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
  /** Told of every stop of every call. */
  onStop?: (step: TaskStep) => void;
  /** `on-question`: a call that never asks never touches the store. */
  persist?: 'on-question';
  /** Told once the lease is lost, before the runner stops driving. */
  onLost?: (error: McpxError) => void;
  /** Why calls in flight at close fail. */
  closeReason: string;
  /** Runs at close once the runner stopped, before calls are let go and the connections close. */
  closing?: () => Promise<void>;
  /** The config the calls let go at close name, so whoever resumes them finds their servers. */
  configPath?: string;
}

export interface Host {
  readonly broker: StoreBroker;
  readonly state: HostState;
  readonly runner: TaskRunner;
  /** The shared upstream connections. */
  readonly mcpx: Mcpx;
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
  /** Opens more upstream connections with the host's pipeline (serve's per-client ones). */
  connect(extra: Partial<McpxOptions>): Promise<Mcpx>;
  /** Set once this process lost its lease on a shared store: the LEASE_LOST error. */
  readonly lost: McpxError | undefined;
  /** Resolves with the LEASE_LOST error once the lease is lost (never without a shared store). */
  readonly whenLost: Promise<McpxError>;
  close(): Promise<void>;
}

export async function createHost(options: HostOptions): Promise<Host> {
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
  let inner: Mcpx | undefined;
  const leaseFacts = { holder, leaseMs, store: state.store.kind };
  let lost: McpxError | undefined;
  let onLost: (error: McpxError) => void = () => undefined;
  const whenLost = new Promise<McpxError>((resolve) => (onLost = resolve));
  // On a shared store this process holds a lease, so a call it drove is taken over by another once it dies.
  // Lost (we stalled past it and another process took our calls): we stop driving them, writing nothing over its.
  const chain = openChain({
    broker,
    tasks,
    env,
    holder,
    pid: process.pid,
    ...(leases ? { lease: { leases, ttlMs: leaseMs } } : {}),
    connectionsOf: async (session) => (await options.connectionsOf?.(session)) ?? inner!,
    runner: {
      onStop: (step) => {
        if (step.status === 'input-required') held.add(step.task.id);
        else held.delete(step.task.id);
        options.onStop?.(step);
      },
      ...(options.persist ? { persist: options.persist } : {}),
    },
    onLost: () => {
      lost = leaseLostError(voice, leaseFacts);
      options.onLost?.(lost);
      void runner.close(lostReason(voice), { lost: true });
      onLost(lost);
    },
  });
  const { runner } = chain;
  await chain.hold();
  // The policy first, then the host's answerers; unanswered, the question waits in the store for anyone.
  const pipeline = chain.pipeline({
    broker: options.pipelineBroker?.({ broker, runner, tasks }) ?? broker,
    policy: options.policy,
    ...(options.session ? { session: options.session } : {}),
    ...(options.callerModes ? { callerModes: true } : {}),
    ...(options.answerers ? { answerers: options.answerers } : {}),
  });
  const connect = (extra: Partial<McpxOptions>): Promise<Mcpx> =>
    createPlainMcpx({ ...options.connections, ...extra, onElicit: pipeline, answerLater: true });
  try {
    inner = await connect(options.shared ?? {});
  } catch (error) {
    await chain.stopLease();
    await state.close();
    throw error;
  }
  const mcpx = inner;
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
    mcpx,
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
    connect,
    get lost() {
      return lost;
    },
    whenLost,
    async close() {
      await runner.close(options.closeReason);
      await options.closing?.();
      // Modern calls this process was driving are let go: whoever asks for their result next resumes them (unless
      // the lease was lost: they are another process's now, and we write nothing over them).
      if (!lost) await releaseHeld(tasks, held, holder, options.configPath);
      await chain.stopLease();
      await mcpx.close();
      await state.close();
    },
  };
}
