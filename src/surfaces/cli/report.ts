/** Errors as a person reads them: one line saying what went wrong and what to do, the issues of a bad answer, no stack. */
import { isMcpxError } from '../../errors.js';
import { EXIT, type CliIO } from './io.js';
import { UsageError } from './args.js';
import { sanitize } from './sanitize.js';
import { errorLead } from './style.js';

interface IssueLike {
  field?: string;
  message?: string;
}

/**
 * Prints the error and returns the exit code: 2 for a usage mistake, 1 otherwise. With `json`, the error is one JSON
 * document on stdout (`{"error": {"code", "message", "issues"}}`), where the result would have been.
 */
export function reportError(
  error: unknown,
  io: Pick<CliIO, 'stdout' | 'stderr' | 'env'>,
  command?: string,
  json = false,
): number {
  const exit = error instanceof UsageError ? EXIT.USAGE : EXIT.FAILURE;
  if (json) {
    io.stdout.write(`${JSON.stringify({ error: jsonOf(error, exit) }, null, 2)}\n`);
    return exit;
  }
  if (error instanceof UsageError) {
    io.stderr.write(
      `${errorLead(io.stderr, io.env, command)} ${error.message}\n${command ? `see: mcpx ${command} --help\n` : ''}`,
    );
    return EXIT.USAGE;
  }
  const lead = errorLead(io.stderr, io.env);
  if (isMcpxError(error)) {
    io.stderr.write(`${lead} ${sanitize(error.message)} [${error.code}]\n`);
    // An issue the message already lists is not printed twice.
    for (const issue of issuesOf(error.data?.issues)) {
      if (issue.message && error.message.includes(issue.message)) continue;
      io.stderr.write(`  ${sanitize(issue.field || '(answer)')}: ${sanitize(issue.message ?? '')}\n`);
    }
  } else {
    io.stderr.write(`${lead} ${sanitize(error instanceof Error ? error.message : String(error))}\n`);
  }
  if (io.env.MCPX_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return EXIT.FAILURE;
}

function issuesOf(value: unknown): IssueLike[] {
  return Array.isArray(value) ? (value as IssueLike[]) : [];
}

function jsonOf(error: unknown, exit: number): Record<string, unknown> {
  if (error instanceof UsageError) return { code: 'USAGE', message: error.message, exit };
  if (isMcpxError(error)) {
    const { issues, ...data } = (error.data ?? {}) as Record<string, unknown>;
    return {
      code: error.code,
      message: error.message,
      ...(Array.isArray(issues) ? { issues } : {}),
      ...(Object.keys(data).length ? { data } : {}),
      exit,
    };
  }
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error), exit };
}
