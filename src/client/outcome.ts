/**
 * What a tool call comes back as: complete, or input-required (a value, never an error). Modern calls carry a
 * JSON-serialisable Continuation that resumes from any process; legacy calls carry a LiveCall, because a legacy
 * server holds its `tools/call` open in this process while the question waits.
 */
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { Answer, Question } from '../types.js';
import type { McpTaskHandle } from './mcp-tasks/index.js';

export type { McpTaskHandle } from './mcp-tasks/index.js';

export interface CallOutcomeBase {
  callId: string;
  server: string;
  /** The tool's name; with `method`, the prompt's name or the resource's URI. */
  tool: string;
  /** Set for `prompts/get` and `resources/read`; absent for a tool call. */
  method?: 'prompts/get' | 'resources/read';
  /** The task (`tsk-`) holding the call when the instance has a store: `mcpx.result(task)` from any process on it. */
  task?: string;
}

/** A tool error is complete too, with `result.isError`. */
export interface CompleteOutcome<R = CallToolResult> extends CallOutcomeBase {
  status: 'complete';
  result: R;
}

export interface InputRequiredOutcome<R = CallToolResult> extends CallOutcomeBase {
  status: 'input-required';
  /** The questions waiting for an answer, each with its `elc-` id. */
  questions: Question[];
  /** Modern: resume later, from any process, with `mcpx.resume(continuation, answers)`. */
  continuation?: Continuation;
  /** Legacy: the call is still open in this process; answer through it. */
  live?: LiveCall<R>;
  /**
   * The questions are another call's: a sign-in to the server that call holds, which this one joined. They are
   * answered through that call (or by the browser's return); `live.result` follows once the sign-in is done.
   */
  joined?: true;
}

export type CallOutcome<R = CallToolResult> = CompleteOutcome<R> | InputRequiredOutcome<R>;
/** What `getPrompt` comes back as: the prompt's messages, or its questions. */
export type PromptOutcome = CallOutcome<GetPromptResult>;
/** What `readResource` comes back as: the resource's contents, or its questions. */
export type ResourceOutcome = CallOutcome<ReadResourceResult>;

/** Everything needed to re-send a modern call with its answers: plain JSON. */
export interface Continuation {
  version: 1;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  callId: string;
  parent?: string;
  /** Set when the continuation re-sends a `prompts/get` or `resources/read` (then `tool` is the prompt's name or the URI). */
  method?: 'prompts/get' | 'resources/read';
  era: 'modern';
  /** 1 for the first input-required result of the call, 2 for the next... */
  round: number;
  /** The server's `inputRequests`, untouched. */
  inputRequests: Record<string, unknown>;
  /** The server's `requestState`, byte-exact; absent when the server sent none (and then never invented). */
  requestState?: string;
  questions: Question[];
  /** When the server asked (ms since epoch). */
  askedAt: number;
  /** Answers a handler already gave in this round (by question id); resume sends them with the rest. */
  answered?: Record<string, Answer>;
}

/** A legacy call held open while its questions wait. */
export interface LiveCall<R = CallToolResult> {
  /** The earliest deadline among the waiting questions; at a question's deadline it is answered cancel. */
  readonly expiresAt: number;
  /** Answers one waiting question. Throws McpxError ANSWER_INVALID (the question stays open) or ELICITATION_NOT_FOUND. */
  respond(questionId: string, answer: Answer): void;
  /** The next outcome: complete, or input-required when a question not in this outcome starts waiting. */
  readonly result: Promise<CallOutcome<R>>;
}

export interface CallOptions {
  /** `cal-<16 hex>`; generated when absent. */
  callId?: string;
  /** The call this one continues (a resumed or nested call). */
  parent?: string;
  signal?: AbortSignal;
  /** This call's question deadline (a daemon's caller's MCPX_ELICIT_TTL_MS); the client's otherwise. */
  elicitTtlMs?: number;
  /** Where the call's progress and log messages go (the CLI's spinner; mcpx serve relays them to its own client). */
  notifications?: CallNotifications;
  /**
   * Make no call: only sign in to the server (an http server behind OAuth), asked as this call's question when a
   * sign-in is needed, then complete with a text result (a host that cannot wait hands its sign-in over this way).
   * With `scope`, a fresh sign-in for those scopes (a step-up the host met on a `403 insufficient_scope`).
   */
  signInOnly?: boolean | { scope: string };
  /**
   * Told of each modern round before its questions go to the handler: the continuation the call stops with if no
   * handler here answers them (the very object; a task runner stores it with the round's question).
   */
  onRound?: (continuation: Continuation) => void;
  /**
   * Call the tool as an MCP task (a tool whose `execution.taskSupport` is "required" always is; "optional" only when
   * asked). The call is held like a legacy one while the server keeps the task; its questions wait the same way.
   * `false`: never as a task; a tool that runs only as one fails with TASKS_NOT_SUPPORTED (data.code -32021), as
   * `mcpx serve` answers a client that did not declare tasks.
   */
  task?: boolean;
  /**
   * Told once the server made the call a task: its task id, for a record another process can come back to. A promise
   * returned is awaited before the task is followed (the record is written before anything else happens to the call).
   */
  onMcpTask?: (handle: McpTaskHandle) => unknown;
  /**
   * Make no call: follow the task the server already holds for it (a new holder picking the call up after the one
   * that started it died), so a tool the server runs is never run twice. Its questions are asked as a task call's.
   */
  followMcpTask?: Pick<McpTaskHandle, 'taskId' | 'era'>;
}

/** A call's notifications from its server, for whoever made the call. */
export interface CallNotifications {
  onProgress?(params: CallProgress): void;
  /** The lowest level wanted, asked of a modern server with each request (a legacy server's level is its session's). */
  logLevel?: string;
  onLog?(params: { level: string; data: unknown; logger?: string }): void;
}

/** One `notifications/progress` of a call, as the server sent it (its message is server text: sanitise it before showing). */
export interface CallProgress {
  progress: number;
  total?: number;
  message?: string;
}
