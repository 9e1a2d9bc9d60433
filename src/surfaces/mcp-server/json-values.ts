/** A JSON object (not null, not an array): what a request's body, params and `_meta` must each be. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
