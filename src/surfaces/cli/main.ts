/**
 * `mcpx`: the only code that touches process, the terminal and exit codes.
 * Commands load lazily so a warm call pays only for what it uses. The program starts in entry.ts.
 */
import { MCPX_VERSION } from '../../constants.js';
import type { CliIO } from './io.js';
import { EXIT } from './io.js';
import { commands } from './commands/index.js';
import { sanitizeLine } from './sanitize.js';
import { errorLead } from './style.js';

function usage(): string {
  const lines = Object.entries(commands)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return [
    'usage: mcpx <command> [options]',
    '',
    'commands:',
    ...lines,
    '',
    'options: --help, --version, --no-color (before or after any command; NO_COLOR=1 does the same)',
    '',
    "mcpx <command> --help (or mcpx help <command>) shows a command's options.",
    'Exit codes: 0 ok, 1 failure, 2 usage, 75 a question waits for an answer.',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    (name ? io.stdout : io.stderr).write(usage());
    return name ? EXIT.OK : EXIT.USAGE;
  }
  if (name === 'help') {
    const topic = rest[0];
    if (topic && commands[topic]) return main([topic, '--help'], io);
    io.stdout.write(usage());
    return topic ? EXIT.USAGE : EXIT.OK;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout.write(`${MCPX_VERSION}\n`);
    return EXIT.OK;
  }
  const entry = commands[name];
  if (!entry) {
    io.stderr.write(`${errorLead(io.stderr, io.env)} unknown command "${sanitizeLine(name)}".\n\n${usage()}`);
    return EXIT.USAGE;
  }
  try {
    const command = await entry.load();
    return await command(rest, io);
  } catch (error) {
    // Loaded only when a command fails: a call that succeeds never reads it.
    return (await import('./report.js')).reportError(error, io, name, rest.includes('--json'));
  }
}
