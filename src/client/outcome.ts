/**
 * What a tool call comes back as: complete, or input-required (a value, never an error). Modern calls carry a
 * JSON-serialisable Continuation that resumes from any process; legacy calls carry a LiveCall, because a legacy
 * server holds its `tools/call` open in this process while the question waits.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { Answer, Question } from '../types.js';

export interface CallOutcomeBase {
  callId: string;
  server: string;
  tool: string;
}

/** A tool error is complete too, with `result.isError`. */
export interface CompleteOutcome extends CallOutcomeBase {
  status: 'complete';
  result: CallToolResult;
}

export interface InputRequiredOutcome extends CallOutcomeBase {
  status: 'input-required';
  /** The questions waiting for an answer, each with its `elc-` id. */
  questions: Question[];
  /** Modern: resume later, from any process, with `mcpx.resume(continuation, answers)`. */
  continuation?: Continuation;
  /** Legacy: the call is still open in this process; answer through it. */
  live?: LiveCall;
}

export type CallOutcome = CompleteOutcome | InputRequiredOutcome;

/** Everything needed to re-send a modern call with its answers: plain JSON. */
export interface Continuation {
  version: 1;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  callId: string;
  parent?: string;
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
export interface LiveCall {
  /** The earliest deadline among the waiting questions; at a question's deadline it is answered cancel. */
  readonly expiresAt: number;
  /** Answers one waiting question. Throws McpxError ANSWER_INVALID (the question stays open) or ELICITATION_NOT_FOUND. */
  respond(questionId: string, answer: Answer): void;
  /** The next outcome: complete, or input-required when a question not in this outcome starts waiting. */
  readonly result: Promise<CallOutcome>;
}

export interface CallOptions {
  /** `cal-<16 hex>`; generated when absent. */
  callId?: string;
  /** The call this one continues (a resumed or nested call). */
  parent?: string;
  signal?: AbortSignal;
}
