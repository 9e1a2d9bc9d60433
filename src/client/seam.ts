/**
 * The one elicitation seam: wire questions (legacy `elicitation/create` params, modern `inputRequests` entries)
 * become our Question; our Answer is checked (schema, defaults, url rules) before it becomes a wire ElicitResult.
 */
import { newElicitationId } from '../ids.js';
import { McpxError } from '../errors.js';
import { checkContent } from '../elicitation/validate.js';
import type { Answer, ElicitationSchema, Era, Question } from '../types.js';
import { requestLabel } from './requests.js';
import { isAction } from '../constants.js';

/** The bare ElicitResult the wire carries. */
export interface WireElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface QuestionOrigin {
  server: string;
  tool: string;
  era: Era;
  callId: string;
  key?: string;
  /** Absent for a tool call. */
  method?: 'prompts/get' | 'resources/read';
}

/** Builds our Question from `elicitation/create` params. Form when `mode` is absent (v1 servers omit it). */
export function questionFromParams(params: Record<string, unknown>, origin: QuestionOrigin): Question {
  const meta = params._meta && typeof params._meta === 'object' ? (params._meta as Record<string, unknown>) : undefined;
  const mode = params.mode === 'url' ? 'url' : 'form';
  const question: Question = {
    id: newElicitationId(),
    server: origin.server,
    tool: origin.tool,
    mode,
    message: typeof params.message === 'string' ? params.message : '',
    era: origin.era,
    callId: origin.callId,
  };
  if (origin.method !== undefined) question.method = origin.method;
  if (origin.key !== undefined) question.key = origin.key;
  if (mode === 'form' && params.requestedSchema && typeof params.requestedSchema === 'object')
    question.requestedSchema = params.requestedSchema as ElicitationSchema;
  if (mode === 'url' && typeof params.url === 'string') question.url = params.url;
  if (typeof params.elicitationId === 'string') question.elicitationId = params.elicitationId;
  // Only a hint toward the person is honoured; a hint toward the agent is not (an agent must not claim a question).
  if (meta?.['io.mcpx/audience'] === 'user') question.audience = 'user';
  if (meta) question.meta = meta;
  return question;
}

/** Builds the questions of a modern `inputRequests` map. Only elicitation is declared, so only elicitation is answerable. */
export function questionsFromInputRequests(
  inputRequests: Record<string, unknown>,
  origin: Omit<QuestionOrigin, 'key'>,
): Question[] {
  return Object.entries(inputRequests).map(([key, request]) => {
    const entry = (request ?? {}) as { method?: unknown; params?: unknown };
    if (entry.method !== 'elicitation/create') {
      throw new McpxError(
        'CALL_FAILED',
        `${requestLabel(origin.server, origin.tool, origin.method)} asked for "${String(entry.method)}" (input request "${key}"), which mcpx does not declare or answer`,
        {
          data: { server: origin.server, tool: origin.tool, key, method: entry.method },
        },
      );
    }
    return questionFromParams((entry.params ?? {}) as Record<string, unknown>, { ...origin, key });
  });
}

/**
 * Checks an answer against its question and returns what goes on the wire. Throws ANSWER_INVALID (naming the
 * field and what it expects) for content that does not match; nothing invalid is ever sent.
 */
export function toWireResult(question: Question, answer: Answer): WireElicitResult {
  if (!answer || typeof answer !== 'object' || !isAction((answer as { action?: unknown }).action)) {
    throw new McpxError('ANSWER_INVALID', `the answer to ${question.id} must be {action: "accept" | "decline" | "cancel"}`, {
      data: {
        id: question.id,
        issues: [
          {
            field: 'action',
            expected: '"accept", "decline" or "cancel"',
            message: 'action: expected "accept", "decline" or "cancel"',
          },
        ],
      },
    });
  }
  if (answer.action !== 'accept') return { action: answer.action };
  // URL mode: accept is consent to open the page; there is no content.
  if (question.mode === 'url') return { action: 'accept' };
  const check = checkContent(question.requestedSchema, answer.content ?? {}, { applyDefaults: true });
  if (!check.ok) {
    throw new McpxError(
      'ANSWER_INVALID',
      `the answer to ${question.id} does not match the question: ${check.issues.map((i) => i.message).join('; ')}`,
      {
        data: { id: question.id, issues: check.issues },
      },
    );
  }
  return { action: 'accept', content: check.content };
}

/**
 * A call that asked past its bound (`maxQuestionsPerCall`): the call fails with this, and the question past the
 * bound is never shown to anyone (legacy: it is answered cancel on the wire, since nobody chose).
 */
export function tooManyQuestions(label: string, limit: number): McpxError {
  return new McpxError(
    'QUESTION_LIMIT',
    `${label} asked more than ${limit} questions in one call, so mcpx stopped the call; if the server really needs more, raise the bound with "maxQuestionsPerCall" in the config's "elicit" block (or createMcpx's maxQuestionsPerCall option)`,
    { data: { limit, bound: 'maxQuestionsPerCall' } },
  );
}

/** Deeper than any real result; past it a result is refused before anything stores, prints or forwards it. */
export const MAX_RESULT_DEPTH = 1000;

/**
 * Refuses a result nested past MAX_RESULT_DEPTH with a clear CALL_FAILED: left alone it overflows the stack of
 * whatever serialises it next (the task store, the daemon's reply), far from the call and under another name.
 * Walked without recursion, so the check itself cannot overflow.
 */
export function checkResultDepth<R>(result: R, label: string, data: Record<string, unknown>): R {
  const stack: Array<[unknown, number]> = [[result, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_RESULT_DEPTH) {
      throw new McpxError(
        'CALL_FAILED',
        `${label} returned a result nested more than ${MAX_RESULT_DEPTH} levels deep, which mcpx refuses: it could not be stored, shown or passed on safely`,
        { data: { ...data, maxDepth: MAX_RESULT_DEPTH } },
      );
    }
    for (const child of Object.values(value as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return result;
}
