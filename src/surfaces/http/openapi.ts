/** The OpenAPI response helpers every route definition uses. */
import { ErrorSchema } from './schemas.js';
import type { ErrorStatus } from './errors.js';

export const json = <T>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errorResponse = json(ErrorSchema, 'An error: {error: {code, message, data?}}');
export function errors<S extends ErrorStatus>(...statuses: S[]): Record<S, typeof errorResponse> {
  return Object.fromEntries(statuses.map((s) => [s, errorResponse])) as Record<S, typeof errorResponse>;
}
