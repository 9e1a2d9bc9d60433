import { join } from 'node:path';
import { stateDir } from '../paths.js';

/** Where the CLI and daemon keep questions: `<stateDir>/mcpx.sqlite` (MCPX_STATE_DIR moves it). */
export function defaultSqlitePath(env: Record<string, string | undefined>): string {
  return join(stateDir(env), 'mcpx.sqlite');
}
