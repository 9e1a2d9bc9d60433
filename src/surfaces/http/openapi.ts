/** The OpenAPI response helpers every route definition uses. */
import { createRoute, type RouteConfig } from '@hono/zod-openapi';
import { ErrorSchema, ServerParams } from './schemas.js';
import type { ErrorStatus } from './errors.js';

export const json = <T>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errorResponse = json(ErrorSchema, 'An error: {error: {code, message, data?}}');
export function errors<S extends ErrorStatus>(...statuses: S[]): Record<S, typeof errorResponse> {
  return Object.fromEntries(statuses.map((s) => [s, errorResponse])) as Record<S, typeof errorResponse>;
}

/** A GET route that answers 200 with one JSON body (`ok`: its schema and description), or one of the listed errors. */
export function jsonGetRoute<R extends Omit<RouteConfig, 'method' | 'responses'>, T, S extends ErrorStatus>(
  spec: R & { ok: [T, string]; errors: S[] },
) {
  const { ok, errors: statuses, ...route } = spec;
  return createRoute({
    method: 'get',
    ...(route as unknown as R),
    responses: { 200: json(ok[0], ok[1]), ...errors(...statuses) },
  });
}

/** What a request over a server's pooled connection may fail with: bad input, no token, no such server, the server, no daemon. */
const POOLED_ERRORS: ErrorStatus[] = [400, 401, 404, 502, 503];

/** A GET of one configured server (`/v1/servers/{server}` and below), answered over the daemon's pooled connection. */
export function serverGetRoute<T, S extends ErrorStatus>(
  tail: string,
  { errors = POOLED_ERRORS as S[], ...spec }: { operationId: string; summary: string; ok: [T, string]; errors?: S[] },
) {
  return jsonGetRoute({ path: `/v1/servers/{server}${tail}`, ...spec, request: { params: ServerParams }, errors });
}
