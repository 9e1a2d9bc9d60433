import { readFileSync } from 'node:fs';
import { McpxError } from '../errors.js';
import { parsePolicy, type Policy } from './schema.js';

/** The policy block (`elicit`) of a config file; the empty policy when there is no file. */
export function readPolicyFile(configPath: string | undefined): Policy {
  if (!configPath) return parsePolicy({});
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(configPath, 'utf8'));
  } catch (error) {
    throw new McpxError('CONFIG_INVALID', `cannot read the policy in ${configPath}: ${(error as Error).message}`, { cause: error, data: { file: configPath } });
  }
  return parsePolicy((raw as { elicit?: unknown } | null)?.elicit ?? {});
}

/** A question's TTL from `MCPX_ELICIT_TTL_MS`, or `fallbackMs` when it is unset. */
export function ttlFromEnv(raw: string | undefined, fallbackMs: number): number {
  if (raw === undefined || raw === '') return fallbackMs;
  const ttl = Number(raw);
  if (!Number.isFinite(ttl) || ttl <= 0) throw new McpxError('CONFIG_INVALID', `MCPX_ELICIT_TTL_MS must be a positive number of milliseconds, got ${JSON.stringify(raw)}`);
  return ttl;
}
