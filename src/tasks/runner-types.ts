/** The task runner's public shapes: its options, a call's start, and what it offers (runner.ts drives them). */
import type { Broker, ElicitRequest } from '../broker/index.js';
import type { PolicyMode } from '../policy/schema.js';
import type { CallNotifications } from '../client/index.js';
import type { TaskStore } from './task-store.js';
import type { CallOptions, CallProgress, TaskHost, TaskRecord, TaskStep } from './types.js';
import type { Receipts } from './delivery.js';

export interface TaskRunnerOptions {
  broker: Broker;
  store: TaskStore;
  /** The mcpx instance that serves a session's calls (the daemon pools one per session). */
  host: (session: string, sessionSource?: SessionSource) => Promise<TaskHost>;
  /** Names the process holding the calls (the daemon's config fingerprint); recovery only touches its own tasks. */
  holder?: string;
  pid?: number;
  /** This process in lease rows and its host, recorded on its tasks so others can tell whether it lives. */
  instance?: string;
  hostName?: string;
  /** Delivery receipts for legacy answers (an answerer waits for one; `tasks/delivery.ts`); default: the broker's store's. */
  receipts?: Receipts;
  clock?: () => number;
  /** Told of every stop of every call (each round's questions, then complete or failed), not only the first. */
  onStop?: (step: TaskStep) => void;
  /**
   * `always` (default): a task is stored when it starts and at each stop. `on-question`: only once its call asks
   * (with its first question, in the same write where the store allows, so the question's task is always
   * readable); a call that never asks never touches the store, and its caller has the result from its stop.
   */
  persist?: 'always' | 'on-question';
  /**
   * false: nothing resumes this runner's calls once it closes (an inline run's holder is its own): on close its
   * modern questions are abandoned too, so an answer to one is refused instead of accepted and never delivered.
   */
  resumable?: boolean;
  /** Told of each progress notification of a call: its first round's when the caller gave a token (`token`), every re-sent round's. */
  onProgress?: (task: TaskRecord, progress: CallProgress, token: string | undefined) => void;
}

export interface StartInput {
  server: string;
  /** The tool's name; with `method`, the prompt's name or the resource's URI. */
  tool: string;
  /** `prompts/get` or `resources/read` for a prompt or resource (they may ask too); absent for a tool call. */
  method?: 'prompts/get' | 'resources/read';
  arguments: Record<string, unknown>;
  session: string;
  /** How the caller found its session; recorded on the questions its call asks. */
  sessionSource?: SessionSource;
  parent?: string;
  /** The policy mode for this call's questions (the caller's `--elicit`); the config's otherwise. */
  elicit?: PolicyMode;
  /** The deadline for this call's questions (the caller's MCPX_ELICIT_TTL_MS); the host's otherwise. */
  elicitTtlMs?: number;
  /** Where the first request's progress and log messages go (mcpx serve's client; a resumed round has none). */
  notifications?: CallNotifications;
  /** The caller's name for this call's progress events. */
  progressToken?: string;
  /** No call: only the sign-in its server needs (CallOptions.signInOnly), for a caller that cannot wait for it. */
  signInOnly?: CallOptions['signInOnly'];
  /** Call the tool as an MCP task, or (false) never as one (CallOptions.task). */
  task?: boolean;
}

export type SessionSource = ElicitRequest['sessionSource'];

export interface TaskRunner {
  /** Starts a call; resolves at its first stop: complete, input-required (the call keeps running) or failed. */
  start(input: StartInput): Promise<TaskStep>;
  get(id: string): Promise<TaskRecord | undefined>;
  /** Resolves with the task once it is complete or failed, or as it stands when `timeoutMs` passes. */
  wait(id: string, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<TaskRecord | undefined>;
  /** The task that holds a call (by `cal-` id), while this runner drives it. */
  taskOfCall(callId: string): string | undefined;
  /** Whether a question cannot be tied to one call for certain (the client marked it: a legacy question with several calls open and no link). */
  isAmbiguous(questionId: string): boolean;
  /** The policy mode the caller chose for the call (by `cal-` id, any round), while this runner drives it. */
  elicitModeOf(callId: string): PolicyMode | undefined;
  /** Drives a stored modern task waiting at a round (its holder let it go) from its continuation; resolves at its next stop. */
  adopt(task: TaskRecord): Promise<TaskStep>;
  /** The session of the call (by `cal-` id, any round), while this runner drives it: known before the task is stored. */
  sessionOfCall(callId: string): string | undefined;
  /** After a restart: legacy questions of this holder's unfinished tasks are abandoned, modern rounds resumed. */
  recover(): Promise<{ abandoned: string[]; resumed: string[] }>;
  /** Calls this runner is driving right now (of one session, when given). */
  active(session?: string): number;
  /**
   * Stops driving: legacy questions still waiting are abandoned (their call dies with us), modern ones stay resumable.
   * With `lost` (another process took this holder's lease, and may have taken its modern calls), nothing is written
   * for a modern call: its record is the taker's now.
   */
  close(reason?: string, options?: { lost?: boolean }): Promise<void>;
}
