/** Which session a question belongs to: the harness's MCPX_SESSION_ID, else a fingerprint of config + cwd. */
import { createHash } from 'node:crypto';
import type { ElicitRequest } from './types.js';

export interface SessionBinding {
  session: string;
  sessionSource: ElicitRequest['sessionSource'];
}

/**
 * A second invocation in the same shell carries the same MCPX_SESSION_ID, so it sees the same questions.
 * Without one (a bare terminal) the session is `fp-<16 hex>` of the config path and working directory, and
 * the record says so (`sessionSource: 'fingerprint'`) rather than refusing to work.
 */
export function resolveSession(
  env: Record<string, string | undefined>,
  where: { configPath?: string; cwd: string },
): SessionBinding {
  const fromEnv = env.MCPX_SESSION_ID?.trim();
  if (fromEnv) return { session: fromEnv, sessionSource: 'env' };
  const digest = createHash('sha256')
    .update(`${where.configPath ?? ''}\u0000${where.cwd}`)
    .digest('hex')
    .slice(0, 16);
  return { session: `fp-${digest}`, sessionSource: 'fingerprint' };
}
