/** What a CLI command may touch. Injected, so a command runs in a test as a function and returns its exit code. */
import type { Readable, Writable } from 'node:stream';

export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Whether a person is at the terminal (stdin and stdout are TTYs). */
  isTTY: boolean;
}

/** A command: argv after the command name in, exit code out. */
export type Command = (argv: string[], io: CliIO) => Promise<number>;

/** Exit codes: 0 ok, 1 failure, 2 usage, 75 (EX_TEMPFAIL) a question is waiting for an answer. */
export const EXIT = { OK: 0, FAILURE: 1, USAGE: 2, SOFTWARE: 70, INPUT_REQUIRED: 75, INTERRUPTED: 130 } as const;
