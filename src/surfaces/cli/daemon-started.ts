/** The line a call that started its config's daemon says on a terminal, so the process that outlives it is no surprise. */
import type { CliIO } from './io.js';

export function sayDaemonStarted(io: Pick<CliIO, 'stderr'>, pid: number, configPath: string | undefined): void {
  if ((io.stderr as { isTTY?: boolean }).isTTY !== true) return;
  io.stderr.write(
    `mcpx: started a daemon (pid ${pid}) for ${configPath ?? 'no config'}; it holds calls and questions and stops when idle ` +
      `(mcpx daemon status --all lists every daemon)\n`,
  );
}
