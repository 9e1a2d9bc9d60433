/**
 * The `mcpx` program's first file. A warm `mcpx call` (the config's daemon runs) is answered from this file alone
 * (warm-call.ts, bundled in); every other command loads the program (program.ts, its own build entry). `mcpx elicit
 * count`, on every shell prompt, goes from there to its own small module, without the command table.
 */
import { isatty } from 'node:tty';
import { stateDir } from '../../paths.js';
import { describeTightened, tightenPrivateDir } from '../../private-files.js';
import type { CliIO } from './io.js';
import { reportError } from './report.js';
import { warmCall } from './warm-call.js';

// `--no-color` is for every command: taken off here (before `--`), it becomes NO_COLOR for the command and its servers.
const end = process.argv.includes('--') ? process.argv.indexOf('--') : process.argv.length;
const noColor = process.argv.slice(2, end).includes('--no-color');
const argv = process.argv.slice(2).filter((word, i) => word !== '--no-color' || i + 2 >= end);
if (noColor) process.env.NO_COLOR = '1';
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

// Not top-level await: this file is also built as CommonJS (dist/cli.cjs, the bin), which Node loads without its
// ES module loader (about 10 ms of a warm call).
async function start(): Promise<void> {
  try {
    // Whichever command comes first closes a state dir an older mcpx left open to other users, and says so (once:
    // the next finds it closed). A Tab completion never prints: the next command does it.
    if (argv[0] !== '__complete') {
      const tightened = tightenPrivateDir(stateDir(process.env));
      if (tightened) process.stderr.write(`mcpx: ${describeTightened(tightened)}\n`);
    }
    const warm = argv[0] === 'call' ? await warmCall(argv.slice(1), io) : undefined;
    process.exitCode = warm ?? (await (await import('./program.js')).runProgram(argv, io));
  } catch (error) {
    process.exitCode = reportError(error, io);
  }
}

void start();
