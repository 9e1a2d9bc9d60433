import { McpxError } from '../errors.js';

/** A question's TTL from `MCPX_ELICIT_TTL_MS`, or `fallbackMs` when it is unset. */
export function ttlFromEnv(raw: string | undefined, fallbackMs: number): number {
  if (raw === undefined || raw === '') return fallbackMs;
  const ttl = Number(raw);
  if (!Number.isFinite(ttl) || ttl <= 0)
    throw new McpxError(
      'CONFIG_INVALID',
      `MCPX_ELICIT_TTL_MS must be a positive number of milliseconds, got ${JSON.stringify(raw)}`,
    );
  return ttl;
}
