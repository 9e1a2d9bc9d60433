/**
 * The config file a command serves, found without loading the loader (no zod, no adapters): a thin client
 * such as `mcpx call` or the opencode plugin picks its daemon by this path.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { McpxError } from '../errors.js';
import { configDir } from '../paths.js';

type Env = Record<string, string | undefined>;

/** The config file as the loader finds it: --config, MCPX_CONFIG, ./mcpx.json, ./.mcp.json, <configDir>/mcpx.json. */
export function findConfigPath(flag: string | undefined, cwd: string, env: Env): string | undefined {
  if (flag !== undefined) {
    const path = isAbsolute(flag) ? flag : resolve(cwd, flag);
    if (!existsSync(path))
      throw new McpxError('CONFIG_NOT_FOUND', `config file ${path} does not exist`, { data: { file: path } });
    return path;
  }
  const candidates = [join(cwd, 'mcpx.json'), join(cwd, '.mcp.json'), join(configDir(env), 'mcpx.json')];
  if (env.MCPX_CONFIG) candidates.unshift(resolve(cwd, env.MCPX_CONFIG));
  return candidates.find((p) => existsSync(p));
}
