/**
 * The config file a command serves, found without loading the loader (no zod, no adapters): a thin client
 * such as `mcpx call` or the opencode plugin picks its daemon by this path.
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { McpxError } from '../errors.js';
import { configDir } from '../paths.js';

type Env = Record<string, string | undefined>;

/**
 * Where a config file is looked for, in order: MCPX_CONFIG, then mcpx.json and .mcp.json in the working directory
 * and each parent up to the home directory (or the filesystem root outside it), then <configDir>/mcpx.json. A
 * command run from a project's subdirectory finds the project's config, as git finds its repository.
 */
export function configCandidates(cwd: string, env: Env): string[] {
  const home = resolve(env.HOME || homedir());
  const candidates: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    candidates.push(join(dir, 'mcpx.json'), join(dir, '.mcp.json'));
    if (dir === home || dirname(dir) === dir) break;
  }
  candidates.push(join(configDir(env), 'mcpx.json'));
  const unique = [...new Set(candidates)];
  return env.MCPX_CONFIG ? [resolve(cwd, env.MCPX_CONFIG), ...unique] : unique;
}

/** The config file as the loader finds it: --config, else the first of configCandidates that exists. */
export function findConfigPath(flag: string | undefined, cwd: string, env: Env): string | undefined {
  if (flag !== undefined) {
    const path = isAbsolute(flag) ? flag : resolve(cwd, flag);
    if (!existsSync(path))
      throw new McpxError('CONFIG_NOT_FOUND', `config file ${path} does not exist`, { data: { file: path } });
    return path;
  }
  return configCandidates(cwd, env).find((p) => existsSync(p));
}

/** Changes whenever the config file does (or appears, or goes): a long-lived process reads it again then. */
export function configStamp(configPath: string | undefined): string {
  if (!configPath) return '';
  try {
    const stat = statSync(configPath);
    return `${stat.mtimeMs}:${stat.size}`;
  } catch {
    return 'missing';
  }
}
