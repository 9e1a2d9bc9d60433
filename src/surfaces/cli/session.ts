/**
 * The session this command runs in (§6b): MCPX_SESSION_ID when the harness set it, else the fingerprint of the
 * config and the working directory. Its calls raise questions in it, and it sees and answers only those, unless
 * `--all` (an operator).
 */
import { resolveSession, type SessionBinding } from '../../broker/light.js';
import { findConfigPath } from '../../config/find.js';
import type { CliIO } from './io.js';

export function commandSession(io: Pick<CliIO, 'env' | 'cwd'>, config: string | undefined): SessionBinding {
  const configPath = findConfigPath(config, io.cwd, io.env);
  return resolveSession(io.env, { ...(configPath ? { configPath } : {}), cwd: io.cwd });
}
