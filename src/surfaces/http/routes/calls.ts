/** The call route (200 complete, 202 at a question) and the task route that collects its result. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { StartInput } from '../../../tasks/runner.js';
import type { CallResponse } from '../../../host/results.js';
import { McpxError } from '../../../errors.js';
import type { Question } from '../../../types.js';
import { describeInputRequired } from '../../../elicitation/describe.js';
import { errorBody, statusOfCode } from '../errors.js';
import { errors, json, jsonGetRoute } from '../openapi.js';
import {
  ArgumentsBody,
  CallHeaders,
  CompleteSchema,
  InputRequiredSchema,
  ServerToolParams,
  SessionHeaders,
  TaskEnvelopeSchema,
  TaskIdParams,
  TaskQuery,
  type RestElicitation,
} from '../schemas.js';
import type { RouteContext } from './context.js';
import { checkTaskScope } from '../../../broker/index.js';
import { scopeOf } from '../scope.js';

const callRoute = createRoute({
  method: 'post',
  path: '/v1/call/{server}/{tool}',
  operationId: 'callTool',
  summary: 'Call a tool. 200 with the result, or 202 when the server asked a question (the call keeps running).',
  request: {
    params: ServerToolParams,
    headers: CallHeaders,
    body: { content: { 'application/json': { schema: ArgumentsBody } }, required: false },
  },
  responses: {
    200: json(CompleteSchema, 'The call completed (a tool error is complete with result.isError).'),
    202: {
      ...json(InputRequiredSchema, 'The server asked a question; answer it at Location, collect the result at /v1/tasks/{task}.'),
      headers: {
        Location: { schema: { type: 'string' }, description: '/v1/elicit/{id} of the first question' },
        'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the first question expires' },
      },
    },
    ...errors(400, 401, 403, 404, 409, 410, 415, 422, 500, 502, 503),
  },
});

const SignInBody = z
  .object({
    scope: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'Sign in afresh for these scopes (a 403 insufficient_scope step-up met elsewhere).' }),
  })
  .openapi('SignIn');

const signInRoute = createRoute({
  method: 'post',
  path: '/v1/sign-in/{server}/{tool}',
  operationId: 'signIn',
  summary:
    'Sign in to an OAuth server for a call of one of its tools, making no call: 200 once signed in, or 202 with the sign-in as a url question of that call; the browser comes back to this daemon.',
  request: {
    params: ServerToolParams,
    headers: CallHeaders,
    body: { content: { 'application/json': { schema: SignInBody } }, required: false },
  },
  responses: {
    200: json(CompleteSchema, 'Signed in (already, or with no question): result is a text saying so.'),
    202: callRoute.responses[202],
    ...errors(400, 401, 403, 404, 500, 502, 503),
  },
});

const taskRoute = jsonGetRoute({
  path: '/v1/tasks/{id}',
  operationId: 'getTask',
  summary: 'A call the daemon holds; with ?wait=seconds, answers once it finishes (or the wait ends).',
  request: { params: TaskIdParams, query: TaskQuery, headers: SessionHeaders },
  ok: [TaskEnvelopeSchema, 'The task, with its result when complete'],
  errors: [400, 401, 403, 404, 503],
});

export function mountCallRoute(app: OpenAPIHono, context: RouteContext): void {
  const { deps, now } = context;
  const listedOf = listedFrom(context);

  app.openapi(callRoute, async (c) => {
    const { server, tool } = c.req.valid('param');
    const args = (c.req.valid('json') ?? {}) as Record<string, unknown>;
    // The shared responder answers with the route's declared bodies (200, 202, errors); its type is a plain Response.
    return (await startAndRespond(c, { deps, now, listedOf }, { server, tool, arguments: args }, c.req.valid('header'))) as never;
  });
  // `mcpx run` with nobody to answer: the sign-in is held here, where the browser can come back after the run ended.
  app.openapi(signInRoute, async (c) => {
    const { server, tool } = c.req.valid('param');
    const scope = c.req.valid('json')?.scope;
    const input = { server, tool, arguments: {}, signInOnly: scope ? { scope } : true };
    return (await startAndRespond(c, { deps, now, listedOf }, input, c.req.valid('header'))) as never;
  });
}

/** The call headers a request carries, as validated by CallHeaders. */
export type CallHeaderValues = z.infer<typeof CallHeaders>;

/**
 * Starts a request the runner holds (a tool call, or with `method` a prompt or a resource read) and answers: 200 with
 * the result, 202 with the questions it stopped at (Location, Retry-After, the §5.1 text), or the error's status.
 */
export async function startAndRespond(
  c: Context,
  { deps, now, listedOf }: { deps: RouteContext['deps']; now: () => number; listedOf: (q: Question) => Promise<RestElicitation> },
  input: Pick<StartInput, 'server' | 'tool' | 'method' | 'arguments' | 'signInOnly'>,
  headers: CallHeaderValues,
): Promise<Response> {
  const { server, tool } = input;
  const session = headers['x-mcpx-session'] || deps.defaultSession;
  const step = await deps.tasks.start({
    ...input,
    session,
    ...(headers['x-mcpx-session'] && headers['x-mcpx-session-source'] ? { sessionSource: headers['x-mcpx-session-source'] } : {}),
    ...(headers['x-mcpx-parent'] ? { parent: headers['x-mcpx-parent'] } : {}),
    ...(headers['x-mcpx-elicit'] ? { elicit: headers['x-mcpx-elicit'] } : {}),
    ...(headers['x-mcpx-elicit-ttl-ms'] ? { elicitTtlMs: Number(headers['x-mcpx-elicit-ttl-ms']) } : {}),
    ...(headers['x-mcpx-progress-token'] ? { progressToken: headers['x-mcpx-progress-token'] } : {}),
    ...(headers['x-mcpx-task'] ? { task: true } : {}),
  });
  if (step.status === 'complete') {
    const body = { status: 'complete' as const, callId: step.task.callId, task: step.task.id, result: step.result };
    return c.json(body satisfies CallResponse, 200);
  }
  if (step.status === 'failed') {
    const status = statusOfCode(step.error.code);
    return c.json(errorBody(step.error.code, step.error.message, { ...step.error.data, task: step.task.id }), status);
  }
  const questions = await Promise.all(step.questions.map(listedOf));
  const first = questions[0]!;
  c.header('Location', `/v1/elicit/${first.id}`);
  c.header('Retry-After', String(Math.max(0, Math.ceil(Math.min(...questions.map((q) => q.timeLeftMs)) / 1000))));
  // The CLI's §5.1 message, deadlines in UTC.
  const text = describeInputRequired(
    { server, tool, task: step.task.id, questions, session, ...(deps.inline ? { inline: true } : {}) },
    { now: now() },
  );
  const body = {
    status: 'input-required' as const,
    inputRequired: { callId: step.task.callId, task: step.task.id, server, tool, questions, text },
  };
  return c.json(body satisfies CallResponse, 202);
}

/** A question's REST view, read back from the broker that opened it. */
export function listedFrom({ deps, toElicitation }: RouteContext): (question: Question) => Promise<RestElicitation> {
  return async (question) => {
    const request = await deps.broker.get(question.id);
    if (request) return toElicitation(request);
    throw new McpxError(
      'ELICITATION_NOT_FOUND',
      `The question ${question.id} is not in the broker; the pipeline should have opened it.`,
    );
  };
}

export function mountTaskRoute(app: OpenAPIHono, { deps }: RouteContext): void {
  const { tasks } = deps;
  app.openapi(taskRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { wait } = c.req.valid('query');
    const missing = () =>
      c.json(errorBody('TASK_NOT_FOUND', `No task ${id}: it never existed in this store or its record has expired.`), 404);
    // A task is its session's, as its questions are: checked before any wait, so another session learns nothing.
    const found = await tasks.get(id);
    if (!found) return missing();
    checkTaskScope(found, scopeOf(c, deps.defaultSession));
    const task = wait ? await tasks.wait(id, { timeoutMs: wait * 1000, signal: c.req.raw.signal }) : found;
    if (!task) return missing();
    const { continuation: _continuation, holder: _holder, ...visible } = task;
    return c.json({ task: visible }, 200);
  });
}
