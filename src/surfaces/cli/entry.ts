/**
 * The `mcpx` program. `mcpx elicit count` runs on every shell prompt and tmux status refresh, so it is answered
 * here from its own small module, without the command table and the `elicit` verbs; everything else goes to main.
 */
import { isatty } from 'node:tty';
import { stateDir } from '../../paths.js';
import { describeTightened, tightenPrivateDir } from '../../private-files.js';
import type { CliIO } from './io.js';

// `--no-color` is for every command: taken off here (before `--`), it becomes NO_COLOR for the command and its servers.
const end = process.argv.includes('--') ? process.argv.indexOf('--') : process.argv.length;
const noColor = process.argv.slice(2, end).includes('--no-color');
const argv = process.argv.slice(2).filter((word, i) => word !== '--no-color' || i + 2 >= end);
if (noColor) process.env.NO_COLOR = '1';
// serve's stdout is the MCP wire (or the URL a host reads): no library's console output may reach it. Before any
// other module loads, so nothing logs first.
if (argv[0] === 'serve') (await import('./console-to-stderr.js')).consoleToStderr(process.stderr);
const badge = argv[0] === 'elicit' && argv[1] === 'count';
// The completion scripts call `mcpx __complete` on every Tab: it too stays off the command modules.
const completing = argv[0] === '__complete';
const io: CliIO = {
  stdout: process.stdout,
  stderr: process.stderr,
  // process.stdin is built on first use (a tty or socket stream): the badge never reads it, so it never pays for it.
  get stdin() {
    return process.stdin;
  },
  env: process.env,
  cwd: process.cwd(),
  // Asked of the file descriptors, so a call that never reads stdin does not build its stream to ask.
  get isTTY() {
    return isatty(0) && isatty(1);
  },
};

// A reader that stops early (`mcpx list x | head`) closes the pipe: stop as other CLIs do, not with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

try {
  // Whichever command comes first closes a state dir an older mcpx left open to other users, and says so (once:
  // the next finds it closed). A Tab completion never prints: the next command does it.
  if (!completing) {
    const tightened = tightenPrivateDir(stateDir(process.env));
    if (tightened) process.stderr.write(`mcpx: ${describeTightened(tightened)}\n`);
  }
  // A daemon started for a cold `mcpx call` starts that call's server first, so it boots while the daemon loads.
  if (argv[0] === 'daemon' && argv[1] === 'run' && argv.includes('--prewarm') && process.platform !== 'win32') {
    const early = (await import('../daemon/prewarm.js')).prewarmFromArgv(argv.slice(2), process.env, process.cwd());
    if (early)
      process.stderr.write(
        `${new Date().toISOString()} mcpx daemon[${process.pid}]: started server "${early}" early, for the first call\n`,
      );
  }
  if (completing) {
    // A server connected for its tool names may keep the loop alive; the shell is waiting.
    process.exit(await (await import('./completion/complete.js')).complete(argv.slice(1), io));
  }
  process.exitCode = badge
    ? await (await import('./commands/elicit-count.js')).command(argv.slice(2), io)
    : await (await import('./main.js')).main(argv, io);
} catch (error) {
  process.exitCode = (await import('./report.js')).reportError(error, io, badge ? 'elicit' : undefined);
}
