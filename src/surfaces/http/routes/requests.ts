/**
 * A prompt get and a resource read, held by the task runner like a tool call: they may ask questions too (both
 * eras), so they answer 200 with the result or 202 at a question, exactly as `POST /v1/call/{server}/{tool}` does.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { errors, json } from '../openapi.js';
import { CallHeaders, CompleteSchema, InputRequiredSchema, ServerParams } from '../schemas.js';
import { listedFrom, startAndRespond } from './calls.js';
import type { RouteContext } from './context.js';

const PromptParams = ServerParams.extend({
  prompt: z
    .string()
    .min(1)
    .openapi({ param: { name: 'prompt', in: 'path' }, example: 'code_review' }),
});

const PromptArgumentsBody = z
  .record(z.string(), z.string())
  .openapi('PromptArguments', { description: "The prompt's arguments (strings, as MCP defines them)." });

const ResourceReadBody = z
  .object({ uri: z.string().min(1).openapi({ example: 'file:///notes/today.md' }) })
  .openapi('ResourceRead');

const asked = {
  ...json(InputRequiredSchema, 'The server asked a question; answer it at Location, collect the result at /v1/tasks/{task}.'),
  headers: {
    Location: { schema: { type: 'string' as const }, description: '/v1/elicit/{id} of the first question' },
    'Retry-After': { schema: { type: 'integer' as const }, description: 'Seconds until the first question expires' },
  },
};

const promptRoute = createRoute({
  method: 'post',
  path: '/v1/prompt/{server}/{prompt}',
  operationId: 'getPrompt',
  summary: 'Get a prompt (prompts/get). 200 with its messages, or 202 when the server asked a question on the way.',
  request: {
    params: PromptParams,
    headers: CallHeaders,
    body: { content: { 'application/json': { schema: PromptArgumentsBody } }, required: false },
  },
  responses: {
    200: json(CompleteSchema, 'The prompt: result is the GetPromptResult.'),
    202: asked,
    ...errors(400, 401, 403, 404, 409, 410, 415, 422, 500, 502, 503),
  },
});

const resourceRoute = createRoute({
  method: 'post',
  path: '/v1/resource/{server}',
  operationId: 'readResource',
  summary: 'Read a resource (resources/read). 200 with its contents, or 202 when the server asked a question on the way.',
  request: {
    params: ServerParams,
    headers: CallHeaders,
    body: { content: { 'application/json': { schema: ResourceReadBody } }, required: true },
  },
  responses: {
    200: json(CompleteSchema, 'The resource: result is the ReadResourceResult.'),
    202: asked,
    ...errors(400, 401, 403, 404, 409, 410, 415, 422, 500, 502, 503),
  },
});

export function mountRequestRoutes(app: OpenAPIHono, context: RouteContext): void {
  const { deps, now } = context;
  const listedOf = listedFrom(context);
  app.openapi(promptRoute, async (c) => {
    const { server, prompt } = c.req.valid('param');
    const args = (c.req.valid('json') ?? {}) as Record<string, string>;
    const input = { server, tool: prompt, method: 'prompts/get' as const, arguments: args };
    return (await startAndRespond(c, { deps, now, listedOf }, input, c.req.valid('header'))) as never;
  });
  app.openapi(resourceRoute, async (c) => {
    const { server } = c.req.valid('param');
    const { uri } = c.req.valid('json');
    const input = { server, tool: uri, method: 'resources/read' as const, arguments: {} };
    return (await startAndRespond(c, { deps, now, listedOf }, input, c.req.valid('header'))) as never;
  });
}
