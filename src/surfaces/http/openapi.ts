/** The OpenAPI response helpers every route definition uses. */
import { createRoute, type RouteConfig } from '@hono/zod-openapi';
import { ErrorSchema } from './schemas.js';
import type { ErrorStatus } from './errors.js';

export const json = <T>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errorResponse = json(ErrorSchema, 'An error: {error: {code, message, data?}}');
export function errors<S extends ErrorStatus>(...statuses: S[]): Record<S, typeof errorResponse> {
  return Object.fromEntries(statuses.map((s) => [s, errorResponse])) as Record<S, typeof errorResponse>;
}

/** A GET route that answers 200 with one JSON body, or one of the listed errors. */
export function jsonGetRoute<R extends Omit<RouteConfig, 'method' | 'responses'>, T, S extends ErrorStatus>(
  spec: R,
  ok: { schema: T; description: string },
  errorStatuses: S[],
) {
  return createRoute({
    method: 'get',
    ...spec,
    responses: { 200: json(ok.schema, ok.description), ...errors(...errorStatuses) },
  });
}
