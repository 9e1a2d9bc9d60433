/**
 * The daemon's REST surface as a Hono app (no listen() inside: the daemon or a test serves it).
 * A call that stops at a question answers 202 with `Location: /v1/elicit/{id}` and `Retry-After`: the request was
 * understood and completion is pending, which is not the caller's mistake.
 */
import { OpenAPIHono, createRoute, type z } from '@hono/zod-openapi';
import type { Tool } from '@modelcontextprotocol/client';
import { streamSSE } from 'hono/streaming';
import { elicitationOf } from '../../broker/question.js';
import type { Broker, BrokerEvent, ElicitRequest, RequestState } from '../../broker/types.js';
import { cursorAfter, parseCursor } from '../../broker/paging.js';
import { McpxError } from '../../errors.js';
import type { Question } from '../../types.js';
import { describeInputRequired, respondWith } from '../../elicitation/describe.js';
import { checkUrl } from '../../elicitation/url.js';
import type { TaskRunner } from '../../tasks/runner.js';
import { accessGuard } from './web/gate.js';
import type { WebAuth } from './web/auth.js';
import { mountWebRoutes } from './web/routes.js';
import { toolPaths } from './tool-paths.js';
import { errorBody, statusOfCode, toHttpError, type ErrorStatus } from './errors.js';
import {
  AcceptBody,
  AnswerHeaders,
  AnsweredSchema,
  ArgumentsBody,
  CallHeaders,
  CompleteSchema,
  ElicitIdParams,
  ElicitListQuery,
  ElicitationListSchema,
  ElicitationWithAnswerSchema,
  ErrorSchema,
  EventSchema,
  EventsQuery,
  HealthSchema,
  InputRequiredSchema,
  ServerListSchema,
  ServerParams,
  ServerToolParams,
  TaskIdParams,
  TaskQuery,
  TaskEnvelopeSchema,
  ToolListSchema,
  type RestElicitation,
} from './schemas.js';

export interface AppDeps {
  broker: Broker;
  tasks: TaskRunner;
  info: { pid: number; version: string; startedAt: number };
  /** The session a call or answer is in when the request names none. */
  defaultSession: string;
  /** When set, every request must carry `Authorization: Bearer <token>` (the loopback TCP port; the unix socket needs none). */
  token?: string;
  /** The daemon runs inside the command (daemon.inline): calls cannot outlive it, and the text says so. */
  inline?: boolean;
  clock?: () => number;
  /** SSE keepalive comment interval. */
  keepAliveMs?: number;
  /** The configured servers and their tools, over the daemon's pooled connections (for `mcpx gen`). */
  catalog?: ToolCatalog;
  /** The web inbox's sign-ins (shared by the socket app, which mints codes, and the port's, which browsers use). */
  web?: WebAuth;
  /** Opens the daemon's loopback port if it has none yet, and says which it is (the socket app: web sign-in links). */
  openPort?: () => Promise<number>;
}

/** What the tool-listing routes read: the daemon's own warm connections, so no server is spawned per request. */
export interface ToolCatalog {
  serverNames(): Promise<string[]>;
  listTools(server: string): Promise<Tool[]>;
}

const json = <T>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errorResponse = json(ErrorSchema, 'An error: {error: {code, message, data?}}');
function errors<S extends ErrorStatus>(...statuses: S[]): Record<S, typeof errorResponse> {
  return Object.fromEntries(statuses.map((s) => [s, errorResponse])) as Record<S, typeof errorResponse>;
}

const STATES: RequestState[] = ['pending', 'answered', 'expired', 'abandoned'];

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

const listRoute = createRoute({
  method: 'get',
  path: '/v1/elicit',
  operationId: 'listElicitations',
  summary: 'Questions, pending by default, with time left.',
  request: { query: ElicitListQuery },
  responses: { 200: json(ElicitationListSchema, 'The questions'), ...errors(400, 401, 503) },
});

const getRoute = createRoute({
  method: 'get',
  path: '/v1/elicit/{id}',
  operationId: 'getElicitation',
  summary: 'One question, with time remaining, and its answer once answered.',
  request: { params: ElicitIdParams },
  responses: { 200: json(ElicitationWithAnswerSchema, 'The question'), ...errors(400, 401, 404, 503) },
});

function answerRoute(action: 'accept' | 'decline' | 'cancel') {
  return createRoute({
    method: 'post',
    path: `/v1/elicit/{id}/${action}`,
    operationId: `${action}Elicitation`,
    summary:
      action === 'accept'
        ? 'Accept, with content matching the requested schema (form mode).'
        : action === 'decline'
          ? 'Decline: explicitly no.'
          : 'Cancel: dismissed, not chosen.',
    request: {
      params: ElicitIdParams,
      headers: AnswerHeaders,
      ...(action === 'accept' ? { body: { content: { 'application/json': { schema: AcceptBody } }, required: false } } : {}),
    },
    responses: {
      200: json(AnsweredSchema, 'Answered; the call resumes'),
      ...errors(400, 401, 403, 404, 409, 410, 415, 422, 503),
    },
  });
}

const taskRoute = createRoute({
  method: 'get',
  path: '/v1/tasks/{id}',
  operationId: 'getTask',
  summary: 'A call the daemon holds; with ?wait=seconds, answers once it finishes (or the wait ends).',
  request: { params: TaskIdParams, query: TaskQuery },
  responses: { 200: json(TaskEnvelopeSchema, 'The task, with its result when complete'), ...errors(400, 401, 404, 503) },
});

const eventsRoute = createRoute({
  method: 'get',
  path: '/v1/events',
  operationId: 'events',
  summary:
    'Server-sent events: every broker event (elicit.open, elicit.answered, elicit.expired, elicit.resumed, elicit.abandoned, elicit.passed, policy.fired), after a first `ready` event; with ?since=ms, the audit log from then is replayed first.',
  request: { query: EventsQuery },
  responses: {
    200: { content: { 'text/event-stream': { schema: EventSchema } }, description: 'An event stream' },
    ...errors(401),
  },
});

const serversRoute = createRoute({
  method: 'get',
  path: '/v1/servers',
  operationId: 'listServers',
  summary: "The servers in the daemon's config.",
  responses: { 200: json(ServerListSchema, 'Server names'), ...errors(401, 503) },
});

const toolsRoute = createRoute({
  method: 'get',
  path: '/v1/servers/{server}/tools',
  operationId: 'listTools',
  summary: "A server's tools, listed over the daemon's pooled connection (the server is started on first need).",
  request: { params: ServerParams },
  responses: { 200: json(ToolListSchema, 'The tools as the server listed them'), ...errors(400, 401, 404, 502, 503) },
});

const healthRoute = createRoute({
  method: 'get',
  path: '/v1/health',
  operationId: 'health',
  summary: 'The daemon is up.',
  responses: { 200: json(HealthSchema, 'pid, version, start time, calls in flight'), ...errors(401) },
});

/** Builds the REST app over a broker and a task runner. */
export function createApp(deps: AppDeps): OpenAPIHono {
  const { broker, tasks } = deps;
  const now = deps.clock ?? Date.now;
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issues = result.error.issues.map((i) => ({ field: i.path.join('.'), expected: i.code, message: i.message }));
        return c.json(
          errorBody(
            'REQUEST_INVALID',
            `The request is not valid: ${issues.map((i) => `${i.field || 'body'}: ${i.message}`).join('; ')}`,
            { issues },
          ),
          400,
        );
      }
      return undefined;
    },
  });

  app.onError((error, c) => {
    const { status, body } = toHttpError(error);
    return c.json(body, status);
  });
  app.notFound((c) => c.json(errorBody('NOT_FOUND', `No route ${c.req.method} ${c.req.path}; see /openapi.json`), 404));

  if (deps.token !== undefined) app.use('*', accessGuard(deps.token, deps.web));
  if (deps.web) mountWebRoutes(app, { web: deps.web, broker, clock: now, ...(deps.openPort ? { openPort: deps.openPort } : {}) });

  // The REST `Elicitation` is the core's listed view, with the task that holds the call and the command that answers.
  const toElicitation = (request: ElicitRequest): RestElicitation =>
    ({
      ...elicitationOf(request, now(), {
        task: request.task ?? tasks.taskOfCall(request.trace),
        respondWith: respondWith(request),
      }),
      ...(request.mode === 'url' ? urlView(request.url) : {}),
    }) as RestElicitation;

  const listedOf = async (question: Question): Promise<RestElicitation> => {
    const request = await broker.get(question.id);
    if (request) return toElicitation(request);
    throw new McpxError(
      'ELICITATION_NOT_FOUND',
      `The question ${question.id} is not in the broker; the pipeline should have opened it.`,
    );
  };

  app.openapi(callRoute, async (c) => {
    const { server, tool } = c.req.valid('param');
    const headers = c.req.valid('header');
    const args = (c.req.valid('json') ?? {}) as Record<string, unknown>;
    const step = await tasks.start({
      server,
      tool,
      arguments: args,
      session: headers['x-mcpx-session'] || deps.defaultSession,
      ...(headers['x-mcpx-session'] && headers['x-mcpx-session-source']
        ? { sessionSource: headers['x-mcpx-session-source'] }
        : {}),
      ...(headers['x-mcpx-parent'] ? { parent: headers['x-mcpx-parent'] } : {}),
      ...(headers['x-mcpx-elicit'] ? { elicit: headers['x-mcpx-elicit'] } : {}),
    });
    if (step.status === 'complete') {
      return c.json({ status: 'complete' as const, callId: step.task.callId, task: step.task.id, result: step.result }, 200);
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
      { server, tool, task: step.task.id, questions, ...(deps.inline ? { inline: true } : {}) },
      { now: now() },
    );
    return c.json(
      {
        status: 'input-required' as const,
        inputRequired: { callId: step.task.callId, task: step.task.id, server, tool, questions, text },
      },
      202,
    );
  });

  app.openapi(listRoute, async (c) => {
    const query = c.req.valid('query');
    const wanted =
      query.state === undefined ? ['pending'] : query.state === 'all' ? STATES : query.state.split(',').map((s) => s.trim());
    const bad = wanted.filter((s) => !STATES.includes(s as RequestState));
    if (bad.length)
      return c.json(
        errorBody('REQUEST_INVALID', `Unknown state "${bad.join(', ')}": use ${STATES.join(', ')}, a comma list, or all.`),
        400,
      );
    if (query.cursor !== undefined && !cursorIsValid(query.cursor))
      return c.json(errorBody('REQUEST_INVALID', 'The cursor is not one a listing gave out: start again without it.'), 400);
    const entries = await broker.pending({
      ...(query.session ? { session: query.session } : {}),
      ...(query.server ? { server: query.server } : {}),
      ...(query.tool ? { tool: query.tool } : {}),
      ...(query.trace ? { trace: query.trace } : {}),
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
      state: wanted as RequestState[],
    });
    const last = entries.at(-1);
    const full = query.limit !== undefined && last !== undefined && entries.length === query.limit;
    return c.json({ elicitations: entries.map(toElicitation), ...(full ? { nextCursor: cursorAfter(last) } : {}) }, 200);
  });

  app.openapi(getRoute, async (c) => {
    const { id } = c.req.valid('param');
    const request = await broker.get(id);
    if (!request)
      return c.json(
        errorBody(
          'ELICITATION_NOT_FOUND',
          `No question ${id}: it never existed here or its record has expired. List what is outstanding with GET /v1/elicit.`,
        ),
        404,
      );
    const answer = await broker.lookup(id);
    return c.json({ elicitation: toElicitation(request), ...(answer ? { answer } : {}) }, 200);
  });

  for (const action of ['accept', 'decline', 'cancel'] as const) {
    const route = answerRoute(action);
    app.openapi(route, async (c) => {
      const { id } = c.req.valid('param');
      const {
        'x-mcpx-session': session,
        'x-mcpx-by': claimed = 'http',
        'x-mcpx-pid': pid,
        'x-mcpx-user': user,
      } = c.req.valid('header');
      const by = c.get('mcpxVia') ?? claimed;
      const content =
        action === 'accept'
          ? (c.req.valid('json' as never) as { content?: Record<string, unknown> } | undefined)?.content
          : undefined;
      const answerer = { ...(pid !== undefined ? { pid } : {}), ...(user ? { user } : {}) };
      const answer = await broker.respond({
        id,
        action,
        by,
        ...(content !== undefined ? { content } : {}),
        ...(session ? { session } : {}),
        ...answerer,
      });
      return c.json({ answer }, 200);
    });
  }

  app.openapi(taskRoute, async (c) => {
    const { id } = c.req.valid('param');
    const { wait } = c.req.valid('query');
    const task = wait ? await tasks.wait(id, { timeoutMs: wait * 1000, signal: c.req.raw.signal }) : await tasks.get(id);
    if (!task)
      return c.json(errorBody('TASK_NOT_FOUND', `No task ${id}: it never existed in this store or its record has expired.`), 404);
    const { continuation: _continuation, holder: _holder, ...visible } = task;
    return c.json({ task: visible }, 200);
  });

  app.openapi(eventsRoute, (c) => {
    const query = c.req.valid('query');
    const kinds = query.kinds ? new Set(query.kinds.split(',').map((k) => k.trim())) : undefined;
    const keepAliveMs = deps.keepAliveMs ?? 15_000;
    return streamSSE(c, async (stream) => {
      const queue: BrokerEvent[] = [];
      let wake: (() => void) | undefined;
      let open = true;
      const unsubscribe = broker.subscribe((event) => {
        if (kinds && !kinds.has(event.kind)) return;
        if (query.session && event.session !== undefined && event.session !== query.session) return;
        queue.push(event);
        wake?.();
      });
      stream.onAbort(() => {
        open = false;
        unsubscribe();
        wake?.();
      });
      let seq = 0;
      await stream.writeSSE({ event: 'ready', data: JSON.stringify({ pid: deps.info.pid }), id: String(seq++) });
      if (query.since !== undefined) {
        // Replay from the audit log, then the live events that arrived meanwhile, each once.
        const keyOf = (e: BrokerEvent): string => `${e.kind}|${e.at}|${e.elicit ?? ''}|${e.trace ?? ''}|${e.pid}`;
        const history = (await broker.audit({ since: query.since, ...(query.session ? { session: query.session } : {}) })).filter(
          (e) => e.at >= query.since! && (!kinds || kinds.has(e.kind)),
        );
        const replayed = new Set(history.map(keyOf));
        const live = queue.splice(0).filter((e) => !replayed.has(keyOf(e)));
        queue.push(...history, ...live);
      }
      while (open) {
        if (!queue.length) {
          const timedOut = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(true), keepAliveMs);
            wake = () => {
              clearTimeout(timer);
              resolve(false);
            };
          });
          wake = undefined;
          if (timedOut && open) await stream.write(': keepalive\n\n');
          continue;
        }
        const event = queue.shift()!;
        await stream.writeSSE({ event: event.kind, data: JSON.stringify(event), id: String(seq++) });
      }
      unsubscribe();
    });
  });

  const catalog = (): ToolCatalog => {
    if (deps.catalog) return deps.catalog;
    throw new McpxError('DAEMON_UNAVAILABLE', 'This app was built without a tool catalog.');
  };
  app.openapi(serversRoute, async (c) => c.json({ servers: await catalog().serverNames() }, 200));
  app.openapi(toolsRoute, async (c) => {
    const { server } = c.req.valid('param');
    const tools = await catalog().listTools(server);
    return c.json({ server, tools: tools as z.infer<typeof ToolListSchema>['tools'] }, 200);
  });

  app.openapi(healthRoute, (c) => c.json({ ...deps.info, activeCalls: tasks.active() }, 200));

  const documentConfig = {
    openapi: '3.1.0',
    info: {
      title: 'mcpx daemon',
      version: deps.info.version,
      description:
        'Call MCP tools through the mcpx daemon. A call that stops at a question answers 202; answer it at /v1/elicit/{id}/accept|decline|cancel.',
    },
  };
  // The routes' document, plus a path per configured tool (typed body and result) when the daemon has a catalog.
  app.get('/openapi.json', async (c) => {
    const document = app.getOpenAPI31Document(documentConfig) as unknown as {
      paths: Record<string, unknown>;
      components?: { schemas?: Record<string, unknown> };
    } & Record<string, unknown>;
    if (!deps.catalog) return c.json(document);
    const perTool = await toolPaths(deps.catalog);
    document.paths = { ...document.paths, ...perTool.paths };
    document.components = { ...document.components, schemas: { ...document.components?.schemas, ...perTool.schemas } };
    if (perTool.skipped.length) document['x-mcpx-skipped-servers'] = perTool.skipped;
    return c.json(document);
  });

  return app;
}

function cursorIsValid(cursor: string): boolean {
  try {
    parseCursor(cursor);
    return true;
  } catch {
    return false;
  }
}

/** url mode: the domain to show beside the URL, and whether mcpx would open it. */
function urlView(url: string | undefined): { domain?: string; urlOpenable: boolean } {
  const check = checkUrl(url);
  return { ...(check.domain ? { domain: check.domain } : {}), urlOpenable: check.openable };
}
