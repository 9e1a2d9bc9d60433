/**
 * The answer-later path across processes: A gets input-required on a modern connection, writes the continuation
 * to a file and exits; B (a new process, a new server process) resumes it and gets the tool's real result.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const script = join(import.meta.dirname, '..', 'helpers', 'continuation-process.ts');

async function side(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: Record<string, any> }> {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script, ...args], {
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    return { code: 0, out: JSON.parse(stdout.trim().split('\n').at(-1)!) };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (!failed.stdout?.trim()) throw new Error(`continuation-process failed: ${failed.stderr}`, { cause: error });
    return { code: failed.code ?? -1, out: JSON.parse(failed.stdout.trim().split('\n').at(-1)!) };
  }
}

describe('cross-process resume', () => {
  it('resumes in process B a call that process A left waiting, and refuses stale state', { timeout: 120_000 }, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcpx-continuation-')), 'continuation.json');
    const a = await side(['ask', file]);
    expect(a.code).toBe(0);
    expect(a.out.questions).toHaveLength(1);

    // A server whose requestState key was rotated since A asked cannot accept A's state.
    const rotated = await side(['resume', file, 'me/thing'], { FIXTURE_STATE_KEY: 'a-different-key-for-the-fixture-0123456789' });
    expect(rotated.code).toBe(1);
    expect(rotated.out.error).toMatchObject({ code: 'CONTINUATION_STALE' });

    const b = await side(['resume', file, 'me/thing']);
    expect(b.code).toBe(0);
    expect(b.out.pid).not.toBe(a.out.pid);
    expect(b.out.outcome).toMatchObject({ status: 'complete', tool: 'ask_form', server: 'fx' });
    expect(b.out.outcome.result.structuredContent).toEqual({
      tool: 'ask_form',
      era: 'modern',
      received: { details: { action: 'accept', content: { repo: 'me/thing', private: false, priority: 'normal' } } },
      state: { tool: 'ask_form', title: 'from A' },
    });
  });
});
