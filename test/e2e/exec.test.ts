/**
 * `mcpx exec` on the built CLI: an inline script (as an argument or on stdin) in the same sandbox, with the same
 * exit codes as `mcpx run`: 0 done, 1 failed, 2 usage, 75 a question nobody here can answer.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

function mcpxExec(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-e2e-exec-')) };
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [cli, 'exec', ...args],
      { cwd: root, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(stdin ?? '');
  });
}

describe('mcpx exec (built CLI)', () => {
  it('runs an inline script that calls a tool and prints its default export (exit 0)', async () => {
    const script =
      "const r: { content: Array<{ text: string }> } = await tools.fixture.no_ask({ text: 'hi from exec' }); export default r.content[0].text";
    const result = await mcpxExec([script, '--config', 'examples/mcpx.json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toContain('hi from exec');
  });

  it('reads the script from stdin with -', async () => {
    const result = await mcpxExec(['-', '--config', 'examples/mcpx.json'], "console.log('from stdin', 6 * 7)\n");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('from stdin 42');
  });

  it('exits 1 with the error and the line of the inline script', async () => {
    const result = await mcpxExec(["const x = 1;\nthrow new Error('inline failure ' + x)", '--config', 'examples/mcpx.json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('inline failure 1');
    expect(result.stderr).toContain('exec.ts:2');
  });

  it('exits 75 with the mcpx call message when nothing can answer', async () => {
    const result = await mcpxExec([
      "await tools.legacy.ask_form({ title: 'nobody answers' }); console.log('not reached')",
      '--config',
      'examples/mcpx.json',
      '--elicit=return',
    ]);
    expect(result.code).toBe(75);
    expect(result.stdout).toMatch(/^mcpx: legacy\.ask_form is waiting for input and nothing here can answer it\./);
    expect(result.stderr).not.toContain('not reached');
  });

  it('exits 2 when no script is given', async () => {
    const result = await mcpxExec([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('which script?');
  });
});
