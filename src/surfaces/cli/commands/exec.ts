/**
 * `mcpx exec '<script>'` and `mcpx exec -` (the script on stdin): an inline script in the same sandbox, with the
 * same flags and exit codes as `mcpx run`. The text is TypeScript (types are stripped), so a one-liner and a file
 * behave alike.
 */
import type { Readable } from 'node:stream';
import { McpxError } from '../../../errors.js';
import { parseArgs, UsageError } from '../args.js';
import { EXIT, type CliIO, type Command } from '../io.js';
import { RUN_FLAGS, runSource, type RunDependencies } from './run.js';

const USAGE = `usage: mcpx exec '<script>' [options]
       mcpx exec - [options]          (the script is read from stdin)

Runs an inline script in the sandbox, exactly as mcpx run runs a file: globals tools.<server>.<tool>(args),
onElicit(handler), ask(question), console.*, setTimeout/clearTimeout; top-level await; \`export default\` is
printed as JSON.

  mcpx exec 'export default await tools.api.list_notes({})'
  echo 'console.log(await tools.git.status({}))' | mcpx exec -

options: the same as mcpx run (--elicit prompt|return|auto|decline|error, --config, --memory-limit, --cpu-limit,
--timeout, --check, --json)

exit: 0 done, 1 the script failed or hit a limit, 2 usage, 75 a question waits for an answer
`;

// Stdin larger than this is refused: an inline script is small, and a runaway pipe must not fill memory.
const MAX_STDIN_BYTES = 4 * 1024 * 1024;

export const command: Command = (argv, io) => execCommand(argv, io);

export async function execCommand(argv: string[], io: CliIO, deps: RunDependencies = {}): Promise<number> {
  const { flags, positional } = parseArgs(argv, RUN_FLAGS);
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  const [text, ...extra] = positional;
  if (text === undefined)
    throw new UsageError("which script? e.g. mcpx exec 'export default 1', or mcpx exec - to read it from stdin");
  if (extra.length) throw new UsageError(`give the script as one argument (quote it); also got: ${extra.join(' ')}`);
  const source = text === '-' ? await readAll(io.stdin) : text;
  if (!source.trim()) throw new UsageError(text === '-' ? 'stdin held no script' : 'the script is empty');
  // A .ts name: types are stripped and --check applies; stack traces name the script as `exec.ts`.
  return runSource(source, text === '-' ? 'stdin.ts' : 'exec.ts', flags, io, deps);
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_STDIN_BYTES)
      throw new McpxError(
        'SCRIPT_ERROR',
        `the script on stdin is larger than ${MAX_STDIN_BYTES / 1024 / 1024} MiB; put it in a file and use mcpx run`,
      );
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
