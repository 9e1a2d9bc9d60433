/** The question routes: list, read one, and answer it (accept, decline, cancel). */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { RequestState } from '../../../broker/index.js';
import { cursorAfter, parseCursor } from '../../../broker/index.js';
import { errorBody } from '../errors.js';
import { errors, json, jsonGetRoute } from '../openapi.js';
import {
  AcceptBody,
  AnswerHeaders,
  AnsweredSchema,
  ElicitIdParams,
  ElicitListQuery,
  ElicitationListSchema,
  ElicitationWithAnswerSchema,
  ScopeQuery,
  SessionHeaders,
} from '../schemas.js';
import { checkScope } from '../../../broker/index.js';
import { listedSession, scopeOf } from '../scope.js';
import type { RouteContext } from './context.js';
import { ACTIONS } from '../../../constants.js';

const STATES: RequestState[] = ['pending', 'answered', 'expired', 'abandoned'];

const listRoute = jsonGetRoute({
  path: '/v1/elicit',
  operationId: 'listElicitations',
  summary: 'Questions, pending by default, with time left.',
  request: { query: ElicitListQuery, headers: SessionHeaders },
  ok: [ElicitationListSchema, 'The questions'],
  errors: [400, 401, 503],
});

const getRoute = jsonGetRoute({
  path: '/v1/elicit/{id}',
  operationId: 'getElicitation',
  summary: 'One question, with time remaining, and its answer once answered.',
  request: { params: ElicitIdParams, query: ScopeQuery, headers: SessionHeaders },
  ok: [ElicitationWithAnswerSchema, 'The question'],
  errors: [400, 401, 403, 404, 503],
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
      query: ScopeQuery,
      headers: AnswerHeaders,
      ...(action === 'accept' ? { body: { content: { 'application/json': { schema: AcceptBody } }, required: false } } : {}),
    },
    responses: {
      200: json(AnsweredSchema, 'Answered; the call resumes'),
      ...errors(400, 401, 403, 404, 409, 410, 415, 422, 503),
    },
  });
}

export function mountElicitRoutes(app: OpenAPIHono, { deps, toElicitation }: RouteContext): void {
  const { broker } = deps;
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
    // A caller lists its own session's questions; an operator every session's, or the one it names.
    const session = listedSession(c, scopeOf(c, deps.defaultSession));
    const entries = await broker.pending({
      ...(session ? { session } : {}),
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
    checkScope(request, scopeOf(c, deps.defaultSession));
    const answer = await broker.lookup(id);
    return c.json({ elicitation: toElicitation(request), ...(answer ? { answer } : {}) }, 200);
  });

  for (const action of ACTIONS) {
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
      // Another session's question is refused before anything is recorded, unless an operator answers.
      const scope = scopeOf(c, deps.defaultSession);
      if (!scope.all) {
        const question = await broker.get(id);
        if (question) checkScope(question, scope);
      }
      const input = {
        id,
        action,
        by,
        ...(content !== undefined ? { content } : {}),
        ...(session ? { session } : {}),
        ...answerer,
      };
      // A held legacy call's answer goes through its holder: delivered, or refused (410) if the holder died.
      const { answer, delivery } = deps.respondHeld
        ? await deps.respondHeld(input)
        : { answer: await broker.respond(input), delivery: 'not-held' as const };
      return c.json({ answer, ...(delivery !== 'not-held' ? { delivery } : {}) }, 200);
    });
  }
}

function cursorIsValid(cursor: string): boolean {
  try {
    parseCursor(cursor);
    return true;
  } catch {
    return false;
  }
}
