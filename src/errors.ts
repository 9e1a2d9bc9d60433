/**
 * One error class for everything mcpx itself refuses, with a string code and the data a caller needs.
 * Wire errors from servers stay the SDK's (`ProtocolError`); an unanswered question is never an error.
 */

import { redact } from './secrets/redact.js';

export type McpxErrorCode =
  // configuration
  | 'CONFIG_NOT_FOUND'
  | 'CONFIG_INVALID'
  | 'SERVER_NOT_FOUND'
  | 'SERVER_EXISTS'
  | 'TOOL_NOT_FOUND'
  | 'PROMPT_NOT_FOUND'
  | 'RESOURCE_NOT_FOUND'
  // connections and calls
  | 'CONNECT_FAILED'
  | 'ERA_NEGOTIATION_FAILED'
  | 'CALL_FAILED'
  | 'ARGUMENTS_INVALID'
  | 'CONTINUATION_INVALID'
  | 'CONTINUATION_STALE'
  /** A task asked of a tool that does not allow MCP task mode, or refused (`task: false`) by one that requires it. */
  | 'TASKS_NOT_SUPPORTED'
  // adapters (OpenAPI and CLI)
  | 'ADAPTER_INVALID'
  // answers
  | 'ANSWER_INVALID'
  | 'URL_NOT_SUPPORTED'
  // broker
  | 'ELICITATION_NOT_FOUND'
  | 'ELICITATION_ALREADY_ANSWERED'
  | 'ELICITATION_EXPIRED'
  | 'ELICITATION_ABANDONED'
  | 'ELICITATION_FORBIDDEN'
  /** An agent, a script (or anything but a person) accepted a question mcpx asked on its own behalf. */
  | 'PERSON_REQUIRED'
  | 'STORE_UNAVAILABLE'
  | 'STORE_UNSUPPORTED'
  | 'BROKER_CLOSED'
  // policy
  | 'POLICY_INVALID'
  | 'ELICITATION_REFUSED'
  /** More questions than a call or a script run may ask (`elicit.maxQuestionsPerCall` / `maxQuestionsPerRun`). */
  | 'QUESTION_LIMIT'
  // runtime
  | 'SCRIPT_ERROR'
  | 'SCRIPT_TIMEOUT'
  | 'SCRIPT_MEMORY_LIMIT'
  | 'SCRIPT_TYPE_ERROR'
  | 'INPUT_REQUIRED'
  // codegen
  | 'CODEGEN_FAILED'
  | 'CODEGEN_STALE'
  // daemon
  | 'DAEMON_UNAVAILABLE'
  /** `mcpx serve` stalled past its lease and another process took its calls over: it runs no more calls. */
  | 'LEASE_LOST'
  /** An address for the web inbox's listener for phones that mcpx refuses (no TLS off loopback, a bad cert, taken). */
  | 'LISTEN_INVALID'
  | 'TASK_NOT_FOUND'
  /** The task is another session's (bound as questions are). */
  | 'TASK_FORBIDDEN'
  // secrets
  | 'SECRET_STORE_FAILED'
  | 'SECRET_MISSING'
  // sign-in (OAuth)
  | 'SIGN_IN_REQUIRED'
  | 'SIGN_IN_FAILED'
  | 'AUTH_LOCKED';

/** A field-level problem: which field, what was expected, in words. */
export interface Issue {
  /** Dotted path of the field (`repo`, `mcpServers.github.command`); empty for the whole value. */
  field: string;
  expected: string;
  message: string;
}

export class McpxError extends Error {
  override readonly name = 'McpxError';
  readonly code: McpxErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(code: McpxErrorCode, message: string, options: { cause?: unknown; data?: Record<string, unknown> } = {}) {
    // No message of mcpx's shows a value of the secret store, wherever it came from (src/secrets/redact.ts).
    super(redact(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.data = options.data;
  }

  toJSON(): { code: McpxErrorCode; message: string; data?: Record<string, unknown> } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export function isMcpxError(value: unknown, code?: McpxErrorCode): value is McpxError {
  return value instanceof McpxError && (code === undefined || value.code === code);
}
