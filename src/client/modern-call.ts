/**
 * A modern-era (2026-07-28) call: `input_required` results are handled by mcpx, not auto-fulfilled by the SDK.
 * Each round's questions go to the host's handler; when one is left unanswered the call comes back as a
 * Continuation that any process can resume by re-sending the call with `inputResponses` and the exact
 * `requestState` (SEP-2322: byte-exact echo, none invented, a new JSON-RPC id per retry).
 */
import { ProtocolError, isInputRequiredResult, type CallToolResult, type Client } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { McpxError } from '../errors.js';
import type { Answer, ElicitContext, ElicitHandler, Question } from '../types.js';
import type { CallOutcome, Continuation } from './outcome.js';
import { isExactContinuation } from '../fast/index.js';
import { ELICITATION_ID } from '../ids.js';
import { checkResultDepth, questionsFromInputRequests, tooManyQuestions, toWireResult, type WireElicitResult } from './seam.js';
import { methodField, requestLabel, requestParams, type AskingMethod } from './requests.js';

/** SEP-2243: the request's headers disagree with its body or the tool's declared `x-mcp-header`s. */
export const HEADER_MISMATCH = -32020;

/** Rounds one call may take before mcpx gives up on a server that keeps asking. */
export const MAX_ROUNDS = 16;

export interface ModernCallOptions {
  client: Client;
  server: string;
  /** The tool's name, the prompt's name or the resource's URI. */
  tool: string;
  /** Default `tools/call`. */
  method?: AskingMethod;
  /** Extra HTTP headers for each request of the call (SEP-2243 `Mcp-Param-*`), rebuilt for every round. */
  headers?: () => Promise<Record<string, string> | undefined>;
  /** The server refused the request's headers (-32020): refresh what `headers` is built from; the request is sent once more. */
  onHeaderMismatch?: () => Promise<void>;
  arguments: Record<string, unknown>;
  callId: string;
  parent?: string;
  onElicit?: ElicitHandler;
  openUrl?: (url: string) => Promise<boolean>;
  /** No openUrl here: whoever answers a url question opens the page on their side (the daemon's surfaces). */
  urlOpenedByAnswerer?: boolean;
  ttlMs: number;
  /** Questions the call may ask over its rounds in this process; past it the call fails with QUESTION_LIMIT. */
  maxQuestions?: number;
  requestTimeoutMs: number;
  signal?: AbortSignal;
  /** Added to each request's `_meta` (a progress token, a log level). */
  meta?: Record<string, unknown>;
  /** See CallOptions.onRound. */
  onRound?: (continuation: Continuation) => void;
  now: () => number;
}

interface Retry {
  round: number;
  inputResponses?: Record<string, WireElicitResult>;
  requestState?: string;
}

/** Drives the call from its first request, or from a retry (a resume), until complete or a question waits. */
export async function runModernCall<R = CallToolResult>(
  options: ModernCallOptions,
  retry: Retry = { round: 0 },
): Promise<CallOutcome<R>> {
  const { server, tool, callId } = options;
  const method = options.method ?? 'tools/call';
  const label = requestLabel(server, tool, method);
  let { round, inputResponses, requestState } = retry;
  let asked = 0;
  for (;;) {
    const params = requestParams(method, tool, options.arguments);
    if (options.meta) params._meta = options.meta;
    if (inputResponses) params.inputResponses = inputResponses;
    // Echo exactly what the server sent; never add one it did not.
    if (requestState !== undefined) params.requestState = requestState;
    let response: unknown;
    try {
      response = await send(options, method, params, true);
    } catch (error) {
      throw callError(server, tool, error, requestState !== undefined, method);
    }
    if (!isInputRequiredResult(response)) {
      const result = checkResultDepth(response as R, label, { server, tool });
      return { status: 'complete', callId, server, tool, ...methodField(method), result };
    }

    round += 1;
    if (round > MAX_ROUNDS)
      throw new McpxError('CALL_FAILED', `${label} asked for input ${MAX_ROUNDS} rounds in a row; giving up`, {
        data: { server, tool, rounds: round - 1 },
      });
    const askedAt = options.now();
    const inputRequests = (response.inputRequests ?? {}) as Record<string, unknown>;
    const nextState = typeof response.requestState === 'string' ? response.requestState : undefined;
    asked += Object.keys(inputRequests).length;
    // Past the bound the round is never asked: no question is opened and nothing is sent back to the server.
    if (options.maxQuestions !== undefined && asked > options.maxQuestions) throw tooManyQuestions(label, options.maxQuestions);
    const questions = questionsFromInputRequests(inputRequests, { server, tool, era: 'modern', callId, ...methodField(method) });
    // The round as it waits if no handler here answers: the continuation the call stops with then.
    const waiting: Continuation = {
      version: 1,
      server,
      tool,
      arguments: options.arguments,
      callId,
      ...methodField(method),
      era: 'modern',
      round,
      inputRequests,
      questions,
      askedAt,
    };
    if (options.parent !== undefined) waiting.parent = options.parent;
    if (nextState !== undefined) waiting.requestState = nextState;
    options.onRound?.(waiting);
    const answers = options.onElicit
      ? await Promise.all(questions.map((q) => askHandler(options, q, askedAt + options.ttlMs)))
      : questions.map(() => undefined);

    if (answers.some((a) => a === undefined)) {
      const answered: Record<string, Answer> = {};
      questions.forEach((q, i) => {
        const a = answers[i];
        if (a) answered[q.id] = a;
      });
      const continuation: Continuation = Object.keys(answered).length ? { ...waiting, answered } : waiting;
      return {
        status: 'input-required',
        callId,
        server,
        tool,
        ...methodField(method),
        questions: questions.filter((_, i) => answers[i] === undefined),
        continuation,
      };
    }
    inputResponses = questions.length
      ? Object.fromEntries(questions.map((q, i) => [q.key!, toWireResult(q, answers[i]!)]))
      : undefined;
    requestState = nextState;
  }
}

/**
 * The result as the SDK's wire decode accepted it (that decode validates it against the wire schema). Without a
 * schema the SDK validates it a second time per call, after a probe parse that fails and formats an error; that
 * second pass only strips fields it does not know from content blocks, which a pass-through should keep.
 */
export const asReceived = { '~standard': { version: 1, vendor: 'mcpx', validate: (value: unknown) => ({ value }) } } as const;

/** Sends one request of the call with its headers; a -32020 (the headers no longer match the server's view) re-lists and resends once. */
async function send(
  options: ModernCallOptions,
  method: AskingMethod,
  params: Record<string, unknown>,
  mayRetry: boolean,
): Promise<unknown> {
  const headers = await options.headers?.();
  try {
    return await options.client.request({ method, params }, asReceived, {
      allowInputRequired: true,
      timeout: options.requestTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(hasAny(headers) ? { headers } : {}),
    });
  } catch (error) {
    if (!mayRetry || !options.onHeaderMismatch || !(error instanceof ProtocolError) || error.code !== HEADER_MISMATCH)
      throw error;
    await options.onHeaderMismatch();
    return send(options, method, params, false);
  }
}

const hasAny = (headers: Record<string, string> | undefined): headers is Record<string, string> =>
  headers !== undefined && Object.keys(headers).length > 0;

/** Asks the handler one question; its deadline answers cancel. Invalid content throws (nothing is sent). */
async function askHandler(options: ModernCallOptions, question: Question, expiresAt: number): Promise<Answer | undefined> {
  // The handler's signal is made when it first reads it, aborted once the question is settled (already, if read
  // after): a handler that never reads it (serve's, with nobody in-process to ask) costs no controller and no abort.
  let abort: AbortController | undefined;
  let settled = false;
  const context: ElicitContext = {
    get signal() {
      abort ??= new AbortController();
      if (settled) abort.abort();
      return abort.signal;
    },
    arguments: options.arguments,
    expiresAt,
  };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Answer>((resolve) => {
    timer = setTimeout(() => resolve({ action: 'cancel' }), Math.max(0, expiresAt - options.now()));
  });
  try {
    const answer = await Promise.race([options.onElicit!(question, context), deadline]);
    if (answer === undefined) return undefined;
    const wire = toWireResult(question, answer);
    if (question.mode === 'url' && wire.action === 'accept') {
      // Accept in url mode is consent to open: if the page cannot be opened, the person was never asked.
      const opened = options.openUrl
        ? Boolean(question.url) && (await options.openUrl(question.url!))
        : options.urlOpenedByAnswerer === true;
      return opened ? { action: 'accept' } : { action: 'cancel' };
    }
    return answer;
  } finally {
    clearTimeout(timer);
    settled = true;
    abort?.abort();
  }
}

const answerSchema = z.union([
  z.object({ action: z.literal('accept'), content: z.record(z.string(), z.unknown()).optional() }),
  z.object({ action: z.literal('decline') }),
  z.object({ action: z.literal('cancel') }),
]);

const questionSchema = z.looseObject({
  id: z.string().regex(ELICITATION_ID),
  server: z.string(),
  tool: z.string(),
  mode: z.enum(['form', 'url']),
  message: z.string(),
  era: z.literal('modern'),
  callId: z.string(),
  key: z.string(),
  method: z.enum(['prompts/get', 'resources/read']).optional(),
});

const continuationSchema = z.object({
  version: z.literal(1),
  server: z.string().min(1),
  tool: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
  callId: z.string().min(1),
  parent: z.string().optional(),
  method: z.enum(['prompts/get', 'resources/read']).optional(),
  era: z.literal('modern'),
  round: z.number().int().positive(),
  inputRequests: z.record(z.string(), z.unknown()),
  requestState: z.string().optional(),
  questions: z.array(questionSchema),
  askedAt: z.number(),
  answered: z.record(z.string(), answerSchema).optional(),
});

/** Checks a continuation read back from JSON. Throws CONTINUATION_INVALID naming the field. */
export function parseContinuation(value: unknown, fastPaths = true): Continuation {
  // One the schema would return field for field (a call of this process just stopped with it) is used as it is.
  if (fastPaths && isExactContinuation(value)) return value as Continuation;
  const parsed = continuationSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({
      field: i.path.map(String).join('.'),
      expected: i.message,
      message: `${i.path.map(String).join('.') || 'continuation'}: ${i.message}`,
    }));
    throw new McpxError(
      'CONTINUATION_INVALID',
      `not a continuation mcpx can resume: ${issues.map((i) => i.message).join('; ')}`,
      { data: { issues } },
    );
  }
  return parsed.data as unknown as Continuation;
}

/** Turns the answers for a continuation's questions into wire `inputResponses`, refusing gaps and invalid content. */
export function inputResponsesFor(continuation: Continuation, answers: Record<string, Answer>): Record<string, WireElicitResult> {
  const byId = new Map(continuation.questions.map((q) => [q.id, q]));
  for (const id of Object.keys(answers)) {
    if (!byId.has(id)) {
      throw new McpxError(
        'ANSWER_INVALID',
        `${id} is not a question of this continuation (it asks ${[...byId.keys()].join(', ')})`,
        {
          data: {
            id,
            issues: [{ field: id, expected: 'a question id of this continuation', message: `${id}: no such question` }],
          },
        },
      );
    }
  }
  const merged = { ...continuation.answered, ...answers };
  const missing = continuation.questions.filter((q) => merged[q.id] === undefined);
  if (missing.length) {
    throw new McpxError(
      'ANSWER_INVALID',
      `resume needs an answer for every question of the round; missing: ${missing.map((q) => `${q.id} (${q.key})`).join(', ')}`,
      {
        data: {
          missing: missing.map((q) => q.id),
          issues: missing.map((q) => ({
            field: q.id,
            expected: 'an answer (accept, decline or cancel)',
            message: `${q.id}: no answer`,
          })),
        },
      },
    );
  }
  return Object.fromEntries(continuation.questions.map((q) => [q.key!, toWireResult(q, merged[q.id]!)]));
}

export function callError(server: string, tool: string, error: unknown, resuming: boolean, method?: AskingMethod): McpxError {
  if (error instanceof McpxError) return error;
  const label = requestLabel(server, tool, method);
  if (error instanceof ProtocolError) {
    const data = (error.data ?? {}) as Record<string, unknown>;
    if (resuming && error.code === -32602 && data.reason === 'invalid_request_state') {
      return new McpxError(
        'CONTINUATION_STALE',
        `${label} no longer accepts this continuation (its requestState is invalid or expired): run the call again`,
        {
          cause: error,
          data: { server, tool, code: error.code, reason: data.reason },
        },
      );
    }
    if (error.code === -32021) {
      return new McpxError(
        'CALL_FAILED',
        `${label} needs a client capability mcpx did not declare (${JSON.stringify(data.requiredCapabilities ?? {})}); url mode needs an openUrl handler`,
        {
          cause: error,
          data: { server, tool, code: error.code, requiredCapabilities: data.requiredCapabilities },
        },
      );
    }
    // The server's own message and data, so a surface that relays the error (serve) can give them as they were.
    return new McpxError('CALL_FAILED', `${label} failed: ${error.message}`, {
      cause: error,
      data: {
        server,
        tool,
        code: error.code,
        upstreamMessage: error.message,
        ...(error.data !== undefined ? { upstreamData: error.data } : {}),
      },
    });
  }
  return new McpxError('CALL_FAILED', `${label} failed: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
    data: { server, tool },
  });
}
