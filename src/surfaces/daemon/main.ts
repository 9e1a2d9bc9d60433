/**
 * `mcpx daemon run`: be the daemon in this process until stopped (SIGTERM/SIGINT) or idle. The first stdout line
 * tells the starter how it went: `ready <pid>`, or `running <pid>` when another daemon already holds the lock.
 */
import type { Writable } from 'node:stream';
import { MCPX_VERSION } from '../../constants.js';
import { isMcpxError } from '../../errors.js';
import { stopEarly } from '../../client/index.js';
import { runDaemon } from './daemon.js';
import { daemonPaths } from './paths.js';
import { reapGroupOnExit } from './reaper.js';
import { openDaemonParts } from './daemon-wiring.js';

/** EX_SOFTWARE: the daemon exits when another one took over its calls. */
const EXIT_LEASE_LOST = 70;

export interface RunDaemonCommandOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  configPath?: string | undefined;
  port?: number;
  idleMs?: number;
  stdout: Writable;
  stderr: Writable;
}

export async function runDaemonCommand(options: RunDaemonCommandOptions): Promise<number> {
  const paths = daemonPaths(options.env, options.configPath);
  const stamp = (line: string): void =>
    void options.stderr.write(`${new Date().toISOString()} mcpx daemon[${process.pid}]: ${line}\n`);
  let daemon;
  try {
    daemon = await runDaemon({
      paths,
      version: MCPX_VERSION,
      openParts: () =>
        openDaemonParts({
          env: options.env,
          cwd: options.cwd,
          ...(options.configPath ? { configPath: options.configPath } : {}),
          version: MCPX_VERSION,
        }),
      ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      log: stamp,
      // Two daemons must never drive one call: the one that adopted ours has them, so we go, writing nothing more.
      onLeaseLost: () => {
        stamp('another daemon took over our calls (our lease lapsed while we stalled): exiting');
        process.exit(EXIT_LEASE_LOST);
      },
    });
  } catch (error) {
    // A server started early for a call this daemon will not serve (another one runs, or this one failed).
    stopEarly();
    if (isMcpxError(error, 'DAEMON_UNAVAILABLE') && typeof error.data?.pid === 'number') {
      options.stdout.write(`running ${error.data.pid}\n`);
      return 0;
    }
    stamp(`failed to start: ${(error as Error).message}`);
    options.stdout.write(`failed ${(error as Error).message.replace(/\n/g, ' ')}\n`);
    return 1;
  }
  // One stray rejection must not take down every call the daemon holds: log it and keep serving.
  const onStray = (reason: unknown): void =>
    stamp(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  process.on('unhandledRejection', onStray);
  const onSignal = (signal: NodeJS.Signals): void => void daemon.stop(`got ${signal}`);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // The starter waits for this line: said before the reaper's spawn, which costs a fork of this whole process.
  options.stdout.write(`ready ${process.pid}\n`);
  // Its stdio servers go when it goes, even killed (SIGKILL) with no chance to close them.
  reapGroupOnExit();
  await daemon.stopped;
  stopEarly();
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  process.off('unhandledRejection', onStray);
  return 0;
}
