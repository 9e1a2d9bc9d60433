/**
 * `mcpx run` on the built CLI (`node dist/cli.js`), as the README's quick start runs it: the examples check their
 * own output; the input-required one exits 75 with the `mcpx call` message; a runaway script is stopped by the
 * worker watchdog and the process exits 1.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

function mcpxRun(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-e2e-run-')) };
  return new Promise((done) => {
    execFile(process.execPath, [cli, 'run', ...args], { cwd: root, env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('mcpx run (built CLI)', () => {
  it('runs the quick start: onElicit answers the server, the script checks what the server received', async () => {
    const result = await mcpxRun(['examples/quickstart.ts', '--config', 'examples/mcpx.json']);
    expect(result.stderr).toContain('ok: the server received {"repo":"me/thing","priority":"high","private":false}');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      received: { action: 'accept', content: { repo: 'me/thing', priority: 'high', private: false } },
    });
  });

  it('exits 75 with the mcpx call message when nothing can answer', async () => {
    const result = await mcpxRun(['examples/input-required.ts', '--config', 'examples/mcpx.json', '--elicit=return']);
    expect(result.code).toBe(75);
    expect(result.stdout).toMatch(/^mcpx: legacy\.ask_form is waiting for input and nothing here can answer it\./);
    expect(result.stderr).not.toContain('not reached');
  });

  it('stops a loop over heavy builtins at its CPU limit and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-loop-'));
    const script = join(dir, 'loop.js');
    writeFileSync(script, "for (;;) { 'x'.repeat(1e6) }\n");
    const started = Date.now();
    const result = await mcpxRun([script, '--config', 'examples/mcpx.json', '--cpu-limit', '300ms']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/300 ms of CPU time .*\[SCRIPT_TIMEOUT\]/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
