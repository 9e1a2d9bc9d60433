/**
 * The `mcpx` program after entry.ts has read the command line: every command but a warm call (warm-call.ts). Its
 * own build entry (dist/cli-program.js), so the warm call's file stays small; nothing it creates returns to entry.ts.
 */
import type { CliIO } from './io.js';

export async function runProgram(argv: string[], io: CliIO): Promise<number> {
  // serve's stdout is the MCP wire (or the URL a host reads): no library's console output may reach it. Before any
  // other module loads, so nothing logs first.
  if (argv[0] === 'serve') (await import('./console-to-stderr.js')).consoleToStderr(process.stderr);
  const badge = argv[0] === 'elicit' && argv[1] === 'count';
  try {
    // A daemon started for a cold `mcpx call` starts that call's server first, so it boots while the daemon loads.
    if (argv[0] === 'daemon' && argv[1] === 'run' && argv.includes('--prewarm') && process.platform !== 'win32') {
      const early = (await import('../daemon/prewarm.js')).prewarmFromArgv(argv.slice(2), process.env, process.cwd());
      if (early)
        process.stderr.write(
          `${new Date().toISOString()} mcpx daemon[${process.pid}]: started server "${early}" early, for the first call\n`,
        );
    }
    if (argv[0] === '__complete') {
      // A server connected for its tool names may keep the loop alive; the shell is waiting.
      process.exit(await (await import('./completion/complete.js')).complete(argv.slice(1), io));
    }
    return badge
      ? await (await import('./commands/elicit-count.js')).command(argv.slice(2), io)
      : await (await import('./main.js')).main(argv, io);
  } catch (error) {
    return (await import('./report.js')).reportError(error, io, badge ? 'elicit' : undefined);
  }
}
