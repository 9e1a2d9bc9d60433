/**
 * The built CLI (dist/cli.js) run once as its own process, the way a user runs `mcpx …`: its exit code and what it
 * printed. Build first (npx tsup).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const CLI = join(resolve(import.meta.dirname, '..', '..'), 'dist', 'cli.js');

export interface CliRun {
  /** The exit code; 1 when the process was killed (timeout, signal) or ended with no numeric code. */
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined>; stdin?: string; timeoutMs?: number },
): Promise<CliRun> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsup)`);
  return new Promise((done) => {
    const { cwd, env, timeoutMs } = options;
    const child = execFile(process.execPath, [CLI, ...args], { cwd, env, timeout: timeoutMs }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    // Ended at once when there is nothing to send, so a command that reads stdin never waits on the test.
    child.stdin?.end(options.stdin ?? '');
  });
}
