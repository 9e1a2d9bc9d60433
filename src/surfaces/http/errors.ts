/** One mapping from mcpx errors to HTTP: the status and the `{error: {code, message, data?}}` body. */
import { HTTPException } from 'hono/http-exception';
import { isMcpxError, type McpxErrorCode } from '../../errors.js';

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 415 | 422 | 500 | 502 | 503;

const STATUS: Partial<Record<McpxErrorCode, ErrorStatus>> = {
  SERVER_NOT_FOUND: 404,
  TOOL_NOT_FOUND: 404,
  PROMPT_NOT_FOUND: 404,
  RESOURCE_NOT_FOUND: 404,
  ARGUMENTS_INVALID: 422,
  TASKS_NOT_SUPPORTED: 422,
  ELICITATION_NOT_FOUND: 404,
  TASK_NOT_FOUND: 404,
  ELICITATION_ALREADY_ANSWERED: 409,
  ELICITATION_EXPIRED: 410,
  ELICITATION_ABANDONED: 410,
  ANSWER_INVALID: 422,
  URL_NOT_SUPPORTED: 422,
  ELICITATION_FORBIDDEN: 403,
  TASK_FORBIDDEN: 403,
  PERSON_REQUIRED: 403,
  ELICITATION_REFUSED: 403,
  // A server (or script) that kept asking past the bound: the call failed upstream of the caller.
  QUESTION_LIMIT: 502,
  CONNECT_FAILED: 502,
  ERA_NEGOTIATION_FAILED: 502,
  CALL_FAILED: 502,
  SIGN_IN_REQUIRED: 502,
  SIGN_IN_FAILED: 502,
  CONTINUATION_STALE: 410,
  CONTINUATION_INVALID: 422,
  STORE_UNAVAILABLE: 503,
  DAEMON_UNAVAILABLE: 503,
  BROKER_CLOSED: 503,
  LISTEN_INVALID: 400,
};

export interface ErrorBody {
  error: { code: string; message: string; data?: Record<string, unknown> };
}

export function statusOfCode(code: string): ErrorStatus {
  return STATUS[code as McpxErrorCode] ?? 500;
}

export function errorBody(code: string, message: string, data?: Record<string, unknown>): ErrorBody {
  return { error: data === undefined ? { code, message } : { code, message, data } };
}

/** Any thrown value as a status and body; unknown errors are 500 with their message. */
export function toHttpError(error: unknown): { status: ErrorStatus; body: ErrorBody } {
  if (isMcpxError(error)) return { status: statusOfCode(error.code), body: errorBody(error.code, error.message, error.data) };
  // Hono's own refusals while reading the request: a body that is not JSON, or not declared as JSON.
  if (error instanceof HTTPException && error.status === 415) {
    return { status: 415, body: errorBody('REQUEST_INVALID', 'Send the body as JSON with `Content-Type: application/json`.') };
  }
  if (error instanceof HTTPException && error.status === 400) {
    return {
      status: 400,
      body: errorBody('REQUEST_INVALID', `The body is not valid JSON (${error.message}); send a JSON object.`),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, body: errorBody('INTERNAL', message) };
}
