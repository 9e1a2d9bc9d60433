/** Runs `mcpx <argv>` as a function with injected IO: the exit code and what it wrote. */
import { PassThrough } from 'node:stream';
import { main } from '../../../src/surfaces/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], options: { env?: Record<string, string | undefined>; cwd?: string; stdin?: string; isTTY?: boolean } = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  stdin.end(options.stdin ?? '');
  const code = await main(argv, { stdout, stderr, stdin, env: options.env ?? {}, cwd: options.cwd ?? process.cwd(), isTTY: options.isTTY ?? false });
  return { code, stdout: out, stderr: err };
}
