/**
 * A warm `mcpx call`: the config's daemon runs, so the call goes straight to its socket. This file and what it
 * imports are built into dist/cli.js as one file (tsup.config.ts): Node resolving and linking the CLI's chunks cost a
 * warm call more than the call itself. Anything else (no daemon, a prompt, --help) is the whole program's.
 */
import { findConfigPath } from '../../config/find.js';
import { createRestBackend } from '../backend/rest-backend.js';
import { daemonPaths, isAlive, readDaemonState } from '../daemon/paths.js';
import { nothingListens, socketFetch } from '../daemon/socket-fetch.js';
import { callArguments, planCall, runCall } from './commands/call-plan.js';
import type { CliIO } from './io.js';
import { reportError } from './report.js';

/** Nothing listens on the daemon's socket: the call was never received, so the whole program may send it afresh. */
class NotWarm extends Error {}

/**
 * Runs `mcpx call <argv>` against the config's running daemon and answers its exit code; undefined when this is not
 * a warm call (the program then runs it): no daemon, a terminal prompt, stdin arguments (the program reads them) or
 * --help. A bad command line is reported here, as the program would report it.
 */
export async function warmCall(argv: string[], io: CliIO): Promise<number | undefined> {
  const json = argv.includes('--json');
  try {
    const plan = planCall(argv, io);
    if (!plan || plan.mode === 'prompt' || !plan.args) return undefined;
    const state = readDaemonState(daemonPaths(io.env, findConfigPath(plan.config, io.cwd, io.env)));
    if (!state || !isAlive(state.pid)) return undefined;
    const direct = socketFetch(state.socket);
    const backend = createRestBackend({
      fetch: (path, init) =>
        direct.fetch(path, init).catch((error: unknown) => {
          throw nothingListens(error) ? new NotWarm() : error;
        }),
      inline: false,
      close: async () => direct.close(),
    });
    try {
      return await runCall(backend, plan, await callArguments(plan, io), io);
    } finally {
      await backend.close();
    }
  } catch (error) {
    if (error instanceof NotWarm) return undefined;
    return reportError(error, io, 'call', json);
  }
}
