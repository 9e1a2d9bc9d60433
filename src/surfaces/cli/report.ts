/** Errors as a person reads them: one line saying what went wrong and what to do, the issues of a bad answer, no stack. */
import { isMcpxError } from '../../errors.js';
import { EXIT, type CliIO } from './io.js';
import { UsageError } from './args.js';
import { sanitize } from './sanitize.js';

/** Prints the error on stderr and returns the exit code: 2 for a usage mistake, 1 otherwise. */
export function reportError(error: unknown, io: Pick<CliIO, 'stderr' | 'env'>, command?: string): number {
  if (error instanceof UsageError) {
    io.stderr.write(`mcpx${command ? ` ${command}` : ''}: ${error.message}\n${command ? `see: mcpx ${command} --help\n` : ''}`);
    return EXIT.USAGE;
  }
  if (isMcpxError(error)) {
    io.stderr.write(`mcpx: ${sanitize(error.message)} [${error.code}]\n`);
    const issues = error.data?.issues;
    if (Array.isArray(issues)) {
      for (const issue of issues as Array<{ field?: string; message?: string }>) io.stderr.write(`  ${sanitize(issue.field || '(answer)')}: ${sanitize(issue.message ?? '')}\n`);
    }
  } else {
    io.stderr.write(`mcpx: ${sanitize(error instanceof Error ? error.message : String(error))}\n`);
  }
  if (io.env.MCPX_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return EXIT.FAILURE;
}
