/** Where mcpx keeps things on disk. Every function takes the environment, so tests and hosts can redirect. */
import { homedir } from 'node:os';
import { join } from 'node:path';

type Env = Record<string, string | undefined>;

/** State (the SQLite store, era verdicts, daemon socket): MCPX_STATE_DIR, else $XDG_STATE_HOME/mcpx, else ~/.local/state/mcpx. */
export function stateDir(env: Env = process.env): string {
  if (env.MCPX_STATE_DIR) return env.MCPX_STATE_DIR;
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'mcpx');
}

/** The user's config dir: MCPX_CONFIG_DIR, else $XDG_CONFIG_HOME/mcpx, else ~/.config/mcpx. */
export function configDir(env: Env = process.env): string {
  if (env.MCPX_CONFIG_DIR) return env.MCPX_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'mcpx');
}
