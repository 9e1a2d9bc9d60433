/**
 * The durable chain every host stands on, composed here only: the task runner over the broker and the task records,
 * the lease that tells other processes this one lives (kept, or for a daemon the holder lease that also takes over
 * lapsed daemons' calls), and the elicitation pipeline its connections hand questions to.
 */
import type { Broker, SessionBinding } from '../broker/index.js';
import type { ElicitHandler, Question } from '../types.js';
import { createElicitationPipeline, type Answerer } from '../pipeline/pipeline.js';
import type { Policy, PolicyMode } from '../policy/index.js';
import { keepLease, newInstance } from '../tasks/handoff.js';
import type { Leases } from '../tasks/leases.js';
import { createTaskRunner, type TaskRunner, type TaskRunnerOptions } from '../tasks/runner.js';
import { createHolderLease, type HolderLeaseOptions } from '../tasks/takeover.js';
import type { TaskStore } from '../tasks/task-store.js';

type Env = Record<string, string | undefined>;

/** What a runner may be told beyond the chain's own (the daemon's clock, receipts, progress, inline runs). */
export type RunnerExtras = Pick<
  TaskRunnerOptions,
  'hostName' | 'receipts' | 'clock' | 'resumable' | 'onProgress' | 'onStop' | 'persist'
>;

/** A daemon's lease: held before it recovers its calls; lapsed daemons' calls are taken over (tasks/takeover.ts). */
export type Takeover = Pick<HolderLeaseOptions, 'ownerGone' | 'serves' | 'log'>;

export interface ChainOptions {
  broker: Broker;
  tasks: TaskStore;
  /** What the policy's rules see, unless a pipeline is given its own. */
  env?: Env;
  /** Names this process on its tasks and its lease. */
  holder: string;
  pid: number;
  /** This process in lease rows (default `<host>:<pid>:<random>`). */
  instance?: string;
  /** On a store several hosts share (Redis, Postgres): the lease table, and how long a lease lasts unrenewed. */
  lease?: { leases: Leases; ttlMs: number };
  /** The connections a session's calls run on. */
  connectionsOf: TaskRunnerOptions['host'];
  runner?: RunnerExtras;
  /** With `lease`: hold it as a daemon does (wait for it, recover this holder's calls, adopt lapsed holders'). */
  takeover?: Takeover;
  /** Told once another process took this one's lease (it stalled past it) and may have taken its calls. */
  onLost: () => void;
}

export interface PipelineOptions {
  policy?: Policy;
  /** The session questions are opened in (else each call's own, stamped by the broker). */
  session?: SessionBinding;
  answerers?: Answerer[];
  /** Apply the policy mode each call's caller chose. */
  callerModes?: boolean;
  /** The broker questions are opened through (default the chain's). */
  broker?: Broker;
  /** What the policy's rules see (default the chain's). */
  env?: Env;
}

export interface Chain {
  readonly runner: TaskRunner;
  /** The leases of the shared store while this process holds one; undefined elsewhere (and inline). */
  readonly leases: Leases | undefined;
  /** The policy first, then the answerers; unanswered, the question waits in the broker for anyone. */
  pipeline(options: PipelineOptions): ElicitHandler;
  /**
   * Takes the lease (a daemon waits for its own, then recovers its calls and starts taking over lapsed holders');
   * without one, a daemon only recovers. Call once, after whatever the runner's connections need exists.
   */
  hold(): Promise<void>;
  /** Stops renewing the lease (after the runner closed): a survivor takes over what this process let go. */
  stopLease(): Promise<void>;
}

export function openChain(options: ChainOptions): Chain {
  const { broker, tasks, lease, holder } = options;
  const env = options.env ?? {};
  const instance = options.instance ?? newInstance();
  // Its tasks name its lease (when it holds one), so an answerer can tell it died (tasks/delivery.ts).
  const runner = createTaskRunner({
    broker,
    store: tasks,
    holder,
    pid: options.pid,
    ...(lease ? { instance } : {}),
    host: options.connectionsOf,
    ...options.runner,
  });
  let stopLease: () => Promise<void> = async () => undefined;
  const hold = async (): Promise<void> => {
    if (lease && options.takeover) {
      const holderLease = createHolderLease({
        ...options.takeover,
        leases: lease.leases,
        ttlMs: lease.ttlMs,
        holder,
        instance,
        runner,
        tasks,
        broker,
        pid: options.pid,
        onLost: options.onLost,
      });
      await holderLease.acquire();
      await runner.recover();
      holderLease.start();
      stopLease = () => holderLease.stop();
    } else if (lease) {
      // A call it drove is taken over by another process once it dies; lost, it stops driving them (host.ts).
      const kept = await keepLease(lease.leases, holder, lease.ttlMs, instance, options.onLost);
      stopLease = () => kept.stop();
    } else if (options.takeover) {
      await runner.recover();
    }
  };
  return {
    runner,
    leases: lease?.leases,
    pipeline: ({ callerModes, ...pipelineOptions }) =>
      pipelineOf(
        { broker, env, ...pipelineOptions },
        callerModes ? (question) => runner.elicitModeOf(question.callId) : undefined,
      ),
    hold,
    stopLease: () => stopLease(),
  };
}

/** What a pipeline with no task runner behind it is told (`mcpx run`'s in-process calls and its ask()). */
export type StandalonePipelineOptions = Omit<PipelineOptions, 'callerModes' | 'broker'> & { broker: Broker };

/** The policy first, then the answerers; unanswered, the question waits in the broker for anyone. */
export function openPipeline(options: StandalonePipelineOptions): ElicitHandler {
  return pipelineOf(options);
}

function pipelineOf(options: StandalonePipelineOptions, modeOf?: (question: Question) => PolicyMode | undefined): ElicitHandler {
  return createElicitationPipeline({
    broker: options.broker,
    ...(options.env ? { env: options.env } : {}),
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.session ? { session: options.session } : {}),
    ...(modeOf ? { modeOf } : {}),
    ...(options.answerers ? { answerers: options.answerers } : {}),
  });
}
