/** Runs `mcpx run` as a function against the fixture servers, with captured output and its own state dir. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, type RunDependencies } from '../../src/surfaces/cli/commands/run.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { captureIO } from '../cli/helpers/run-cli.js';

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
  const c = captureIO({ env: options.env, cwd: options.cwd });
  let code: number;
  let thrown = '';
  try {
    code = await runCommand(argv, c.io, options.deps);
  } catch (error) {
    // As main() reports it: the command threw.
    thrown = `mcpx: ${(error as Error).message}\n`;
    code = (error as { name?: string }).name === 'UsageError' ? 2 : 1;
  }
  const out = c.out();
  return { code, stdout: out, stderr: c.err() + thrown, json: () => JSON.parse(out) };
}
