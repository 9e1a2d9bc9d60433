/**
 * Tasks: a call the daemon holds (`tsk-<16 hex>`), driven to completion while its questions wait in the broker.
 * The host is the narrow part of `createMcpx` the runner needs, so the runner knows no connection details.
 */
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { CallOptions, CallOutcome, CallProgress, Continuation } from '../client/index.js';
import type { PolicyMode } from '../policy/schema.js';
import type { Answer, Era, Question } from '../types.js';

export type { CallOptions, CallOutcome, CallProgress, Continuation };

/** What a task ends with: a tool result (a tool error is a result with `isError`), or (for a prompt or resource task) the prompt's messages or the resource's contents. */
export type TaskResult = CallToolResult | GetPromptResult | ReadResourceResult;

/** What the runner needs from an mcpx instance (`createMcpx` satisfies it). */
export interface TaskHost {
  callTool(server: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome>;
  getPrompt(
    server: string,
    name: string,
    args?: Record<string, string>,
    options?: CallOptions,
  ): Promise<CallOutcome<GetPromptResult>>;
  readResource(server: string, uri: string, options?: CallOptions): Promise<CallOutcome<ReadResourceResult>>;
  resume<R = CallToolResult>(
    continuation: Continuation,
    answers: Record<string, Answer>,
    options?: Pick<CallOptions, 'signal' | 'elicitTtlMs' | 'notifications'>,
  ): Promise<CallOutcome<R>>;
}

export type TaskState = 'running' | 'input-required' | 'complete' | 'failed';

/** A task as stored: readable by any process that opens the same store. */
export interface TaskRecord {
  id: string;
  callId: string;
  parent?: string;
  server: string;
  /** The tool's name; with `method`, the prompt's name or the resource's URI. */
  tool: string;
  /** Set for a prompt or resource task; absent for a tool call. */
  method?: 'prompts/get' | 'resources/read';
  arguments: Record<string, unknown>;
  session: string;
  state: TaskState;
  era?: Era;
  /** The policy mode the caller chose for this call's questions (else the config's). */
  elicit?: PolicyMode;
  /** The deadline the caller chose for this call's questions (its MCPX_ELICIT_TTL_MS), else the host's. */
  elicitTtlMs?: number;
  /** Every question the call asked, in order (`elc-` ids). */
  questions: string[];
  /** The questions of the round now waiting (empty unless input-required). */
  waitingOn: string[];
  /** Modern: the round waiting for answers, so another daemon can resume it. */
  continuation?: Continuation;
  /** The server made the call an MCP task: its id there (the server keeps the task; mcpx polls it). */
  mcpTask?: { taskId: string; era: Era };
  result?: TaskResult;
  error?: { code: string; message: string; data?: Record<string, unknown> };
  /** The daemon process that holds (or held) the call. */
  pid: number;
  /** Which daemon (by config fingerprint) holds the call: recovery after a restart only touches its own. */
  holder?: string;
  /** A fresh token each time the call is let go: the claim that takes it over names it, so each hand-off has one winner. */
  handoff?: string;
  /** The holding process in lease rows (`<host>:<pid>:<random>`), on a store with leases: its lease says whether it lives. */
  instance?: string;
  /** The holding process's host: on a store without leases, a holder of this host is judged alive by its pid. */
  host?: string;
  /** The config file of the process that let the call go: whoever resumes it connects its servers from there. */
  config?: string;
  createdAt: number;
  updatedAt: number;
}

/** Where a call stands when its caller hears back: finished, or stopped at questions (a value, not an error). */
export type TaskStep =
  | { status: 'complete'; task: TaskRecord; result: TaskResult }
  | { status: 'input-required'; task: TaskRecord; questions: Question[] }
  | { status: 'failed'; task: TaskRecord; error: NonNullable<TaskRecord['error']> };
