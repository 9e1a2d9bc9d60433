/**
 * `mcpx elicit count`: the badge for a shell prompt or a tmux status line: `mcpx: 2 waiting`, or nothing when
 * nothing waits. Fast on purpose: one read-only query on the state file (or, for a shared store, one request to
 * the running daemon); nothing else is loaded, and no daemon is started. The program (entry.ts) runs this module
 * without the rest of the CLI, so its static imports stay few and small: the rest is imported where needed.
 */
import { parseArgs, UsageError } from '../args.js';
import { EXIT, type Command } from '../io.js';

const USAGE = `usage: mcpx elicit count [--session s] [--json] [--config file]

Prints "mcpx: N waiting" when questions wait for an answer, and nothing otherwise (exit 0 either way):
cheap enough for a shell prompt or a tmux status line. --json prints {"waiting": N}.
--session counts only that session's questions.
`;

type Env = Record<string, string | undefined>;

/** The badge text for `waiting` questions: '' for none. */
export function badgeText(waiting: number): string {
  return waiting > 0 ? `mcpx: ${waiting} waiting` : '';
}

export const command: Command = async (argv, io) => {
  const { flags, positional } = parseArgs(argv, { booleans: ['json'], strings: ['session', 'config'] });
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  if (positional.length) throw new UsageError(`count takes no arguments, got ${JSON.stringify(positional.join(' '))}`);
  const session = typeof flags.session === 'string' && flags.session ? flags.session : undefined;
  const waiting = await countWaiting(io.env, io.cwd, typeof flags.config === 'string' ? flags.config : undefined, session);
  if (flags.json) io.stdout.write(`${JSON.stringify({ waiting })}\n`);
  else if (waiting > 0) io.stdout.write(`${badgeText(waiting)}\n`);
  return EXIT.OK;
};

/**
 * Pending questions. The SQLite state file is the daemon's own store, so it is read directly (one read-only
 * query, whether a daemon runs or not). A shared store (MCPX_STORE_URL) is asked through the running daemon,
 * else through the broker.
 */
export async function countWaiting(
  env: Env,
  cwd: string,
  config: string | undefined,
  session: string | undefined,
): Promise<number> {
  if (!env.MCPX_STORE_URL) {
    // The broker's light door: its index loads the whole broker and ajv, +130 ms on every shell prompt.
    const { countPendingInSqliteFile, defaultSqlitePath } = await import('../../../broker/light.js');
    return countPendingInSqliteFile(defaultSqlitePath(env), session ? { session } : {});
  }
  const [{ daemonPaths, isAlive, readDaemonState }, { findConfigPath }] = await Promise.all([
    import('../../daemon/paths.js'),
    import('../../../config/find.js'),
  ]);
  const state = readDaemonState(daemonPaths(env, findConfigPath(config, cwd, env)));
  if (state && isAlive(state.pid)) {
    const counted = await countFromDaemon(state.socket, session);
    if (counted !== undefined) return counted;
  }
  const { createStoreBackend } = await import('../../backend/store-backend.js');
  const backend = await createStoreBackend(env);
  try {
    return (await backend.list({ all: true, ...(session ? { session } : {}) })).length;
  } finally {
    await backend.close();
  }
}

/** One GET over the daemon's socket; undefined when nothing listens there (a stale state file). */
async function countFromDaemon(socket: string, session: string | undefined): Promise<number | undefined> {
  const [{ nothingListens, socketFetch }, { McpxError }] = await Promise.all([
    import('../../daemon/client.js'),
    import('../../../errors.js'),
  ]);
  // A count across sessions (or of the one named) is the operator's badge: ?all=1.
  const path = `/v1/elicit?all=1${session ? `&session=${encodeURIComponent(session)}` : ''}`;
  const daemon = socketFetch(socket);
  try {
    const response = await daemon.fetch(path, { headers: { accept: 'application/json' } });
    const body = await response.text();
    if (response.status !== 200)
      throw new McpxError('DAEMON_UNAVAILABLE', `the daemon answered ${response.status} to ${path}: ${body.slice(0, 200)}`);
    return (JSON.parse(body) as { elicitations: unknown[] }).elicitations.length;
  } catch (error) {
    if (nothingListens(error)) return undefined;
    throw error;
  } finally {
    daemon.close();
  }
}
