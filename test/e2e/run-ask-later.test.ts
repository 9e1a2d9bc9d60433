/**
 * A script's ask() with nobody to ask (the built CLI, no terminal, no onElicit): the question is opened in the
 * state store and the run exits 75 with its id and the commands that answer it; another process answers it, and
 * the script run again gets that answer from the same ask() and goes on. Each step is a separate process.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
});

const SCRIPT = `const repo = await ask('Which repository?');
const sure = await ask({ message: 'Really?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } });
export default { repo, sure };
`;

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-ask-later-'));
  writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: {} }));
  writeFileSync(join(dir, 'job.ts'), SCRIPT);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    MCPX_STATE_DIR: join(dir, 'state'),
    MCPX_CONFIG_DIR: join(dir, 'config'),
  };
  const mcpx = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      const child = execFile(process.execPath, [cli, ...args], { cwd: dir, env }, (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
      child.stdin?.end(); // no terminal, nothing on stdin
    });
  return { run: (...extra: string[]) => mcpx(['run', 'job.ts', ...extra]), mcpx };
}

const idIn = (text: string): string => /mcpx elicit answer (elc-[0-9a-f]{16})/.exec(text)?.[1] ?? 'none';

describe('ask() with nobody to ask', () => {
  it('opens a real question, answered from another process, and the script run again gets the answer', async () => {
    const { run, mcpx } = workspace();
    const first = await run();
    expect(first.code).toBe(75);
    expect(first.stdout).toContain('the script asked "Which repository?" and nobody here can answer it');
    const repoId = idIn(first.stdout);
    expect(first.stdout).toContain(`mcpx elicit answer ${repoId} '{"answer":"..."}'`);
    expect(first.stdout).toContain(`mcpx elicit decline ${repoId} | mcpx elicit cancel ${repoId}`);

    const listed = await mcpx(['elicit', 'list', '--json']);
    const pending = (JSON.parse(listed.stdout) as { elicitations: Array<{ id: string; server: string; tool: string }> })
      .elicitations;
    expect(pending.map((q) => [q.id, q.server, q.tool])).toEqual([[repoId, 'script', 'ask']]);

    // Run again before anyone answered: the same question, not a second one.
    const again = await run();
    expect(again.code).toBe(75);
    expect(idIn(again.stdout)).toBe(repoId);

    // A script's question is not a call that goes on: the answer says to run the script again.
    const answered = await mcpx(['elicit', 'answer', repoId, '{"answer":"me/thing"}']);
    expect(answered.code).toBe(0);
    expect(answered.stderr).toContain(`accepted ${repoId}`);
    expect(answered.stderr).toContain('run the script that asked again: its ask() returns this answer');
    expect(answered.stderr).not.toContain('goes on');
    const second = await run('--json');
    expect(second.code).toBe(75);
    const stop = (
      JSON.parse(second.stdout) as { inputRequired: { server: string; questions: Array<{ id: string; message: string }> } }
    ).inputRequired;
    expect(stop.server).toBe('script');
    expect(stop.questions.map((q) => q.message)).toEqual(['Really?']);
    const sureId = stop.questions[0]!.id;
    expect(sureId).not.toBe(repoId);

    const declined = await mcpx(['elicit', 'decline', sureId]);
    expect(declined.code).toBe(0);
    expect(declined.stderr).toContain(`declined ${sureId}; run the script that asked again`);
    const done = await run();
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({
      repo: { action: 'accept', content: { answer: 'me/thing' } },
      sure: { action: 'decline' },
    });

    // The answers were used by a run that finished: the next run asks afresh.
    const fresh = await run();
    expect(fresh.code).toBe(75);
    expect(fresh.stdout).toContain('Which repository?');
    expect(idIn(fresh.stdout)).not.toBe(repoId);
  });
});
