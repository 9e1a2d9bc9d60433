/**
 * The only door between a script and the world: the runtime sees these functions, never a client, a broker
 * or a terminal. Everything crossing it is plain data (JSON).
 */
import type { Answer, ElicitationSchema } from '../types.js';

/** What a tool call made by the script came to, as the host reports it. */
export type ToolCallReply =
  /** The call completed: `value` is what `await tools.s.t()` resolves to. */
  | { status: 'ok'; value: unknown }
  /** The tool reported an error (or the call failed): the script gets a catchable `ToolError`. */
  | { status: 'tool-error'; message: string; code?: string; result?: unknown }
  /**
   * A question reached the script and nothing could answer it: the run stops at this call (even if the
   * script would catch the error), and its outcome carries `message` and `data` for the surface to show.
   */
  | { status: 'input-required'; message: string; data?: Record<string, unknown> };

/** What `ask()` stops the run with when the host left the question open for someone to answer later. */
export type AskStop = Extract<ToolCallReply, { status: 'input-required' }>;

/** A question the script puts to the person with `ask(q)`. */
export interface AskRequest {
  message: string;
  requestedSchema: ElicitationSchema;
}

export type ConsoleLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

export interface HostBindings {
  /** Runs a tool call for the script. A thrown error reaches the script as a `ToolError` (with the McpxError code if any). */
  callTool(server: string, tool: string, args: Record<string, unknown>): Promise<ToolCallReply>;
  /**
   * Asks the person. `undefined` means nobody could answer: the run stops as input-required. An input-required
   * reply stops it the same way with the host's message and data (the question it left open, and how to answer it).
   * Absent: the run has no person to ask, and `ask()` stops the run the same way.
   */
  ask?(request: AskRequest): Promise<Answer | AskStop | undefined>;
  /** The script's `console.*`, one formatted line (stack traces already mapped to the script's lines). */
  console(level: ConsoleLevel, text: string): void;
  /** Why the runtime did what it did (an onElicit handler that passed a question on, ...). */
  log?(message: string): void;
}
