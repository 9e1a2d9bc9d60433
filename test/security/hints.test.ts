/**
 * #33 item 10: two hints that sent people the wrong way, through the built CLI. A state file overwritten with
 * something else is named as not a SQLite database, with its path and what to do (move it aside), not as a
 * directory to make writable; and an answer given while the daemon that held the call is dead (SIGKILL) says so,
 * and how the call goes on (start that daemon again, then collect the result), not that the call goes on.
 * Each hint is then followed, and does what it says.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-run.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { processAlive as alive } from '../../src/local/process-alive.js';

function scratch(): { dir: string; state: string; env: Record<string, string>; configPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-hints-'));
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: { fx: stdioFixture('dual-era') } }));
  const state = join(dir, 'state');
  return { dir, state, configPath, env: { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: state } };
}

const mcpx = (args: string[], s: { dir: string; env: Record<string, string> }): Promise<CliRun> =>
  runCli(args, { cwd: s.dir, env: s.env, timeoutMs: 60_000 });

describe('a state file that is not a SQLite database', () => {
  it('is named as such, with its path and what to do; moving it aside lets the next command start afresh', async () => {
    const s = scratch();
    mkdirSync(s.state, { mode: 0o700 });
    const file = join(s.state, 'mcpx.sqlite');
    writeFileSync(file, 'these bytes were written over the store by something else\n'.repeat(100), { mode: 0o600 });

    for (const args of [['elicit', 'list'], ['log'], ['elicit', 'count']]) {
      const run = await mcpx(args, s);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(1);
      expect(run.stderr).toContain(`${file} is not a SQLite database`);
      expect(run.stderr).toMatch(/Move it aside/);
      expect(run.stderr).toContain(`mv ${file} ${file}.broken`);
      expect(run.stderr).not.toMatch(/writable/);
    }
    // The file is left as it was: nothing is replaced behind the person's back.
    expect(readFileSync(file, 'utf8')).toMatch(/^these bytes/);

    renameSync(file, `${file}.broken`);
    const afresh = await mcpx(['elicit', 'list'], s);
    expect(afresh.code, afresh.stderr).toBe(0);
    expect(afresh.stdout).toContain('No questions are waiting.');
  });
});

describe('answering while the daemon that held the call is dead', () => {
  const started: Array<ReturnType<typeof scratch>> = [];
  afterEach(async () => {
    for (const s of started.splice(0)) await mcpx(['daemon', 'stop', '--config', s.configPath], s);
  });

  it('says the daemon is not running and how the call goes on, and that way the call completes with the answer', async () => {
    const s = scratch();
    started.push(s);
    const call = await mcpx(['call', 'fx.ask_confirm', '--elicit=return', '--config', s.configPath], s);
    expect(call.code, call.stderr).toBe(75);
    const question = /elc-[0-9a-f]{16}/.exec(call.stdout + call.stderr)![0];
    const task = /tsk-[0-9a-f]{16}/.exec(call.stdout + call.stderr)![0];
    const stateFile = readdirSync(s.state).find((name) => /^daemon-[0-9a-f]{16}\.json$/.test(name))!;
    const pid = (JSON.parse(readFileSync(join(s.state, stateFile), 'utf8')) as { pid: number }).pid;
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 25));
    expect(alive(pid)).toBe(false);

    const answered = await mcpx(['elicit', 'answer', question, '{"confirm":true}', '--config', s.configPath], s);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stderr).not.toMatch(/goes on with this answer/);
    expect(answered.stderr).toContain(`the daemon that held its call (pid ${pid}) is not running`);
    expect(answered.stderr).toContain(`mcpx daemon start --config ${s.configPath}`);
    expect(answered.stderr).toContain(`mcpx task result ${task}`);

    // Doing what it says: the daemon starts again, resumes the call with the kept answer, and the result is there.
    const restarted = await mcpx(['daemon', 'start', '--config', s.configPath], s);
    expect(restarted.code, restarted.stderr).toBe(0);
    const result = await mcpx(['task', 'result', task, '--timeout', '30', '--config', s.configPath], s);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('"confirm":{"action":"accept","content":{"confirm":true}}');
  });
});
