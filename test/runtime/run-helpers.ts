/** Runs `mcpx run` as a function against the fixture servers, with captured output and its own state dir. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCommand, type RunDependencies } from '../../src/surfaces/cli/commands/run.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  json(): any;
}

export function fixtureWorkspace(): {
  dir: string;
  config: string;
  env: Record<string, string | undefined>;
  script(name: string, text: string): string;
} {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-run-'));
  const config = join(dir, 'mcpx.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { modern: stdioFixture('dual-era'), legacy: stdioFixture('legacy-v1') } }));
  return {
    dir,
    config,
    env: { ...process.env, MCPX_STATE_DIR: join(dir, 'state'), MCPX_ELICIT: undefined, MCPX_CONFIG: undefined },
    script(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}

export async function mcpxRun(
  argv: string[],
  options: { cwd: string; env: Record<string, string | undefined>; deps?: RunDependencies },
): Promise<RunResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  let code: number;
  try {
    code = await runCommand(
      argv,
      { stdout, stderr, stdin: new PassThrough(), env: options.env, cwd: options.cwd, isTTY: false },
      options.deps,
    );
  } catch (error) {
    // As main() reports it: the command threw.
    err += `mcpx: ${(error as Error).message}\n`;
    code = (error as { name?: string }).name === 'UsageError' ? 2 : 1;
  }
  return { code, stdout: out, stderr: err, json: () => JSON.parse(out) };
}
