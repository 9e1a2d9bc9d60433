/**
 * `mcpx`: the only code that touches process, the terminal and exit codes.
 * Commands load lazily so a warm call pays only for what it uses.
 */
import type { CliIO } from './io.js';
import { commands } from './commands/index.js';

function usage(): string {
  const lines = Object.entries(commands)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `usage: mcpx <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${process.env.MCPX_VERSION ?? '0.1.0'}\n`);
    return 0;
  }
  const entry = commands[name];
  if (!entry) {
    io.stderr.write(`mcpx: unknown command "${name}".\n\n${usage()}`);
    return 2;
  }
  const command = await entry.load();
  return command(rest, io);
}

const isEntry = typeof process !== 'undefined' && process.argv[1] !== undefined && /(?:^|[\\/])(cli|main)\.(js|ts|mjs)$/.test(process.argv[1]);
if (isEntry) {
  const io: CliIO = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    isTTY: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`mcpx: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
