/** Runs `mcpx <argv>` as a function with injected IO: the exit code and what it wrote. */
import { PassThrough } from 'node:stream';
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

/** Starts a command without waiting for it, so a test can act while it runs. */
export function startCli(argv: string[], options: CliOptions = {}): StartedCli {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  stdin.end(options.stdin ?? '');
  const done = main(argv, {
    stdout,
    stderr,
    stdin,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    isTTY: options.isTTY ?? false,
  }).then((code) => ({ code, stdout: out, stderr: err }));
  return {
    done,
    stderrShows: (text) =>
      new Promise((resolve, reject) => {
        if (err.includes(text)) return resolve();
        const check = () => {
          if (!err.includes(text)) return;
          stderr.off('data', check);
          resolve();
        };
        stderr.on('data', check);
        void done.then(() =>
          err.includes(text)
            ? resolve()
            : reject(new Error(`the command ended without writing ${JSON.stringify(text)}; stderr: ${err}`)),
        );
      }),
  };
}

export function runCli(argv: string[], options: CliOptions = {}): Promise<CliRun> {
  return startCli(argv, options).done;
}
