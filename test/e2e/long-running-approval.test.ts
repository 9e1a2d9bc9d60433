/**
 * The long-running approval example (examples/long-running-approval/run.mjs) as a test: CI's write waits
 * (exit 75, TTL from the config), a person answers from another process, the job collects the result; a second
 * write is declined over REST and never sent. The example checks its own output; this runs it.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

describe('examples/long-running-approval', () => {
  it('runs and checks itself', async () => {
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(
        process.execPath,
        [join(root, 'examples', 'long-running-approval', 'run.mjs')],
        { cwd: root, env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 },
        (error, stdout, stderr) => {
          done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
        },
      );
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('ok: the API received the POST exactly once');
    expect(result.stdout).toContain('ok: the API never received the DELETE; the note is still there');
    expect(result.stdout.trim().split('\n').at(-1)).toBe('ok');
    expect(result.code).toBe(0);
  });
});
