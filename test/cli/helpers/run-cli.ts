/** Runs `mcpx <argv>` as a function with injected IO: the exit code and what it wrote. */
import { PassThrough } from 'node:stream';
import type { CliIO } from '../../../src/surfaces/cli/io.js';
import { main } from '../../../src/surfaces/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  stdin?: string;
  isTTY?: boolean;
}

export interface StartedCli {
  done: Promise<CliRun>;
  /** Resolves once stderr shows `text` (e.g. a command saying it is ready). */
  stderrShows(text: string): Promise<void>;
}

export interface CapturedIO {
  io: CliIO;
  /** What was written so far. */
  out(): string;
  err(): string;
}

/** A command's IO whose stdout and stderr are collected; stdin ends after `options.stdin` (left open when undefined). */
export function captureIO(options: CliOptions = {}): CapturedIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  if (options.stdin !== undefined) stdin.end(options.stdin);
  const io: CliIO = {
    stdout,
    stderr,
    stdin,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    isTTY: options.isTTY ?? false,
  };
  return { io, out: () => out, err: () => err };
}

/** Starts a command without waiting for it, so a test can act while it runs. */
export function startCli(argv: string[], options: CliOptions = {}): StartedCli {
  const captured = captureIO({ ...options, stdin: options.stdin ?? '' });
  const stderr = captured.io.stderr;
  const done = main(argv, captured.io).then((code) => ({ code, stdout: captured.out(), stderr: captured.err() }));
  return {
    done,
    stderrShows: (text) =>
      new Promise((resolve, reject) => {
        if (captured.err().includes(text)) return resolve();
        const check = () => {
          if (!captured.err().includes(text)) return;
          stderr.off('data', check);
          resolve();
        };
        stderr.on('data', check);
        void done.then(() =>
          captured.err().includes(text)
            ? resolve()
            : reject(new Error(`the command ended without writing ${JSON.stringify(text)}; stderr: ${captured.err()}`)),
        );
      }),
  };
}

export function runCli(argv: string[], options: CliOptions = {}): Promise<CliRun> {
  return startCli(argv, options).done;
}
