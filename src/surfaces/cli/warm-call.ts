/**
 * A warm `mcpx call`: the config's daemon runs, so the call goes straight to its socket; or a cold one whose config
 * passed its check before, which starts the daemon from here. This file and what it imports are built into the bin
 * as one file (tsup.config.ts): Node resolving and linking the CLI's chunks cost a warm call more than the call
 * itself. Anything else (a prompt, --help, stdin arguments, an inline daemon) is the whole program's.
 */
import { findConfigPath } from '../../config/find.js';
import { isMcpxError } from '../../errors.js';
import { createRestBackend } from '../backend/rest-backend.js';
import { daemonPaths, isAlive, readDaemonState, type DaemonState } from '../daemon/paths.js';
import { nothingListens, socketFetch } from '../daemon/socket-fetch.js';
import { startDaemonProcess } from '../daemon/start.js';
import { callArguments, planCall, runCall, type CallPlan } from './commands/call-plan.js';
import { configCheckedBefore } from './config-checked.js';
import { sayDaemonStarted } from './daemon-started.js';
import type { CliIO } from './io.js';
import { reportError } from './report.js';

/** Nothing listens on the daemon's socket: the call was never received, so the whole program may send it afresh. */
class NotWarm extends Error {}

/**
 * Runs `mcpx call <argv>` against the config's daemon and answers its exit code; undefined when the program runs it
 * instead (see daemonFor), or for a terminal prompt, stdin arguments (the program reads them) or --help. A bad
 * command line is reported here, as the program would report it.
 */
export async function warmCall(argv: string[], io: CliIO): Promise<number | undefined> {
  const json = argv.includes('--json');
  try {
    const plan = planCall(argv, io);
    if (!plan || plan.mode === 'prompt' || !plan.args) return undefined;
    const state = await daemonFor(plan, io, findConfigPath(plan.config, io.cwd, io.env));
    if (!state) return undefined;
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

/**
 * The daemon to send the call to: the running one, or one started here when nothing but its start is left to do (the
 * config passed the check before, no inline run, no other daemon program). undefined: the program takes the call,
 * and starting the daemon too, or running it inline when it cannot start.
 */
async function daemonFor(plan: CallPlan, io: CliIO, configPath: string | undefined): Promise<DaemonState | undefined> {
  const paths = daemonPaths(io.env, configPath);
  const running = readDaemonState(paths);
  if (running && isAlive(running.pid)) return running;
  const { env } = io;
  if (!configPath || env.MCPX_DAEMON === 'inline' || env.MCPX_DAEMON_COMMAND) return undefined;
  if (!configCheckedBefore(configPath, env, io.cwd)) return undefined;
  try {
    const started = await startDaemonProcess(paths, env, configPath, { cwd: io.cwd, prewarm: plan.server });
    const state = readDaemonState(paths);
    if (started && state) sayDaemonStarted(io, state.pid, configPath);
    return state;
  } catch (error) {
    if (isMcpxError(error, 'DAEMON_UNAVAILABLE')) return undefined;
    throw error;
  }
}
