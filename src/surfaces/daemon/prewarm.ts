/**
 * `mcpx daemon run --prewarm <server>`: a cold `mcpx call` names its server, and the new daemon starts that
 * server's process before it loads the SDK, Hono, zod and the store, so the two boots overlap instead of adding up.
 * The entry is read plainly here (no schemas: they cost the head start); the first connection adopts the process
 * only if the validated config asks for exactly the same spawn (src/client/prespawn.ts), so a reading that differs
 * costs one stopped process, never a wrong server.
 */
import { readConfigJson } from '../../config/read-json.js';
import { expandDeep } from '../../config/expand.js';
import type { Issue } from '../../errors.js';
import { startEarly, stdioSpawnOf } from '../../client/light.js';

type Env = Record<string, string | undefined>;

const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');
const stringMap = (value: unknown): value is Record<string, string> =>
  Boolean(value) &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  Object.values(value as object).every((v) => typeof v === 'string');

/**
 * `argv` after `daemon run`: the `--config <file>` and `--prewarm <server>` that the CLI's daemon start passes.
 * Returns the server's name when its process was started.
 */
export function prewarmFromArgv(argv: string[], env: Env, cwd: string): string | undefined {
  const value = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const configPath = value('--config');
  const name = value('--prewarm');
  if (!configPath || !name) return undefined;
  try {
    const raw = readConfigJson(configPath) as { mcpServers?: unknown; servers?: unknown };
    const servers = (raw.mcpServers ?? raw.servers) as Record<string, unknown> | undefined;
    const issues: Issue[] = [];
    const entry = expandDeep(servers?.[name], env, `mcpServers.${name}`, issues) as Record<string, unknown> | undefined;
    if (issues.length || !entry || typeof entry.command !== 'string' || entry.url !== undefined) return undefined;
    const { command, args, env: serverEnv, cwd: serverCwd } = entry;
    // An asked value ({"ask": ...}) is not known yet, and anything unusual is left to the connection itself.
    if (args !== undefined && !strings(args)) return undefined;
    if (serverEnv !== undefined && !stringMap(serverEnv)) return undefined;
    if (serverCwd !== undefined && typeof serverCwd !== 'string') return undefined;
    startEarly(
      stdioSpawnOf(
        {
          command,
          ...(args ? { args } : {}),
          ...(serverEnv ? { env: serverEnv } : {}),
          ...(serverCwd ? { cwd: serverCwd } : {}),
        },
        env,
        cwd,
      ),
      env,
    );
    return name;
  } catch {
    // A broken config is reported by the daemon's own start, with the whole list of problems.
    return undefined;
  }
}
