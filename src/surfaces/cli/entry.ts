/**
 * The `mcpx` program. `mcpx elicit count` runs on every shell prompt and tmux status refresh, so it is answered
 * here from its own small module, without the command table and the `elicit` verbs; everything else goes to main.
 */
import type { CliIO } from './io.js';

const argv = process.argv.slice(2);
const badge = argv[0] === 'elicit' && argv[1] === 'count';
const io: CliIO = {
  stdout: process.stdout,
  stderr: process.stderr,
  // process.stdin is built on first use (a tty or socket stream): the badge never reads it, so it never pays for it.
  get stdin() {
    return process.stdin;
  },
  env: process.env,
  cwd: process.cwd(),
  get isTTY() {
    return Boolean(process.stdin.isTTY && process.stdout.isTTY);
  },
};

// A reader that stops early (`mcpx list x | head`) closes the pipe: stop as other CLIs do, not with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

try {
  process.exitCode = badge
    ? await (await import('./commands/elicit-count.js')).command(argv.slice(2), io)
    : await (await import('./main.js')).main(argv, io);
} catch (error) {
  process.exitCode = (await import('./report.js')).reportError(error, io, badge ? 'elicit' : undefined);
}
