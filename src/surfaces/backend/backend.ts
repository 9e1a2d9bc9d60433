/**
 * What the CLI commands need from wherever questions and calls live: the daemon's REST API when a daemon runs,
 * else the state store directly (questions, answers and the audit log in `<stateDir>/mcpx.sqlite`).
 * The commands see only this interface, so they read the same whichever answers.
 */
import type { BrokerEvent, Elicitation as ListedQuestion, StoredAnswer } from '../../broker/index.js';
import type { ProgressEvent } from '../../tasks/progress.js';
import type { Answer } from '../../types.js';
import type { Delivery } from '../../tasks/delivery.js';
import type { TaskRecord } from '../../tasks/types.js';
import type { CallResponse } from '../../host/results.js';

/** A question as the CLI draws it: the core's listed view (what `list` and `get` return); `sessionSource` may be absent. */
export type ShownQuestion = Omit<ListedQuestion, 'sessionSource'> & Partial<Pick<ListedQuestion, 'sessionSource'>>;

/**
 * A call's task record as a caller sees it (REST `Task`, `mcpx task`): the store's record without what only its
 * holder reads (the continuation, the holder, the config it was let go with).
 */
export type TaskView = Omit<TaskRecord, 'continuation' | 'holder' | 'config'>;

/** Who asks (§5.5, §6b): the caller's own session, or with `all` an operator over every session. */
export interface Scope {
  session?: string | undefined;
  all?: boolean;
}

export interface ListFilter extends Scope {
  server?: string;
  tool?: string;
  /** pending (default), answered, expired, abandoned, comma list, or all. */
  state?: string;
}

/** A call nothing drives now: the answer given is kept, and this says what makes the call go on. */
export interface StalledCall {
  task: string;
  /** `daemon-stopped`: the daemon that held it is not running (it resumes its calls when started again); `released`: nobody holds it, and `mcpx task result` resumes it. */
  why: 'daemon-stopped' | 'released';
  /** The daemon's pid when it stopped. */
  pid?: number;
  /** That daemon's config file, as its state file names it. */
  config?: string;
}

export interface Backend {
  /** `daemon`: REST over the daemon's socket; `store`: the state store, no daemon running. */
  readonly kind: 'daemon' | 'store';
  /** `elicit`: the policy mode the daemon applies to this call's questions (else the config's). */
  call(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: {
      session?: string;
      sessionSource?: 'env' | 'fingerprint' | 'explicit';
      parent?: string;
      elicit?: 'ask' | 'auto' | 'decline' | 'error';
      /** This call's question deadline (the caller's MCPX_ELICIT_TTL_MS), instead of the daemon's. */
      elicitTtlMs?: number;
      /** A prompt get (`tool` is the prompt's name) or a resource read (`tool` is the URI) instead of a tool call. */
      method?: 'prompts/get' | 'resources/read';
      /** Names the call in its `call.progress` events (see `progress`). */
      progressToken?: string;
      /** Make no call: only the sign-in the tool's server needs, held by the daemon (`POST /v1/sign-in`). */
      signInOnly?: boolean | { scope: string };
      /** Call the tool as an MCP task (one whose `execution.taskSupport` is "optional"; a required one always is). */
      task?: boolean;
    },
  ): Promise<CallResponse>;
  /** The caller's session's questions; with `all`, every session's (narrowed to `session` when given). */
  list(filter: ListFilter): Promise<ListedQuestion[]>;
  /** Refused with ELICITATION_FORBIDDEN when the question is another session's and the scope is not `all`. */
  get(id: string, scope?: Scope): Promise<{ elicitation: ListedQuestion; answer?: StoredAnswer }>;
  /**
   * With `delivery` for a legacy call's answer (refused with ELICITATION_ABANDONED when its daemon died first), and
   * `stalled` when no running process drives the call that asked (its answer is kept for when one does).
   */
  answer(
    id: string,
    answer: Answer,
    scope: Scope,
  ): Promise<StoredAnswer & { delivery?: Exclude<Delivery, 'not-held'>; stalled?: StalledCall }>;
  /**
   * The task; with `waitSeconds`, once it is complete or failed, or as it stands when the wait ends. Refused with
   * TASK_FORBIDDEN when it is another session's and the scope is not `all` (bound as questions are).
   */
  task(id: string, options?: { waitSeconds?: number; signal?: AbortSignal; scope?: Scope }): Promise<TaskView>;
  /**
   * Broker events as they happen, until the signal aborts: the scope's session's (every session's with `all`).
   * `onReady` is called once the subscription is live.
   */
  events(options: { signal: AbortSignal; kinds?: string[]; onReady?: () => void; scope?: Scope }): AsyncIterable<BrokerEvent>;
  /** The servers' progress on the calls a daemon drives (the scope's session's), as it happens (none without a daemon). */
  progress?(options: { signal: AbortSignal; scope?: Scope }): AsyncIterable<ProgressEvent>;
  close(): Promise<void>;
}
