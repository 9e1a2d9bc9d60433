/**
 * Issue #35: `npm run quickstart` reads and runs like a demo. Run for real in a fresh copy of the sources (as a fresh
 * clone, sharing node_modules): it builds the CLI alone, silently, with no declarations, then runs the script.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '..', '..');

it('npm run quickstart prints the demo, not the build, and builds no type declarations', async () => {
  const clone = mkdtempSync(join(tmpdir(), 'mcpx-quickstart-'));
  for (const entry of ['package.json', 'tsup.config.ts', 'tsconfig.json', 'src', 'examples'])
    cpSync(join(repo, entry), join(clone, entry), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(clone, 'node_modules'));

  const run = await new Promise<{ code: number; output: string }>((done) => {
    const env = { PATH: process.env.PATH ?? '', HOME: clone, MCPX_STATE_DIR: join(clone, 'state'), MCPX_DAEMON: 'inline' };
    execFile('npm', ['run', 'quickstart'], { cwd: clone, env, timeout: 240_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout + stderr }),
    );
  });

  expect(run.code, run.output).toBe(0);
  expect(run.output).toContain('fixture asks: Where should "Hello from mcpx" go?');
  expect(run.output).toContain('ok: the server received {"repo":"me/thing","priority":"high","private":false}');
  // npm's two header lines, the question, the verdict and the script's result: nothing of the build.
  expect(run.output).not.toMatch(/Build start|Build success|DTS|ESM|CJS/);
  expect(run.output.split('\n').length).toBeLessThan(25);
  expect(existsSync(join(clone, 'dist', 'cli.js'))).toBe(true);
  expect(readdirSync(join(clone, 'dist')).filter((file) => file.endsWith('.d.ts'))).toEqual([]);
}, 300_000);
