/**
 * The check a cold `mcpx call` makes of its config before it starts a daemon, remembered. Loading the config's
 * schemas is most of what the command does before the daemon can start; a file that passed passes again while its
 * text, the variables it names (`${X}`) and mcpx's version are the same. The mark is a hash, 0600 in the state dir.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { referencedNames } from '../../config/expand.js';
import { MCPX_VERSION } from '../../constants.js';
import { stateDir } from '../../paths.js';
import { makePrivateDir, writePrivateFile } from '../../private-files.js';
import { daemonFingerprint } from '../daemon/paths.js';

type Env = Record<string, string | undefined>;

const markOf = (configPath: string, env: Env): string => join(stateDir(env), `config-checked-${daemonFingerprint(configPath)}`);

/** What the check's verdict depends on, hashed; undefined when the file cannot be read (the check says why). */
function verdictKey(configPath: string, env: Env, cwd: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch {
    return undefined;
  }
  const variables = referencedNames(text).map((name) => `${name}=${JSON.stringify(env[name] ?? null)}`);
  return createHash('sha256')
    .update([MCPX_VERSION, configPath, cwd, text, ...variables].join('\0'))
    .digest('hex');
}

/** Whether this config, as it reads now, passed the check before. */
export function configCheckedBefore(configPath: string, env: Env, cwd: string): boolean {
  const key = verdictKey(configPath, env, cwd);
  if (!key) return false;
  try {
    return readFileSync(markOf(configPath, env), 'utf8') === key;
  } catch {
    return false;
  }
}

/** Remembers that this config, as it reads now, passed the check. */
export function rememberConfigChecked(configPath: string, env: Env, cwd: string): void {
  const key = verdictKey(configPath, env, cwd);
  if (!key) return;
  try {
    makePrivateDir(stateDir(env));
    writePrivateFile(markOf(configPath, env), key);
  } catch {
    // only a shortcut: the next cold call checks again
  }
}
