/**
 * A call the server made an MCP task outlives the daemon that held it: the fixture servers run over HTTP in their
 * own processes (test/fixtures/servers/tasks.mjs, tasks-modern.mjs, `--http`), the daemon is killed or stopped
 * while the task works, and once a daemon runs again `mcpx task result` from another process collects the result.
 * The new daemon follows the server's task: the tool ran once (its marker file says so), and a question the task
 * asks only then is a question like any other.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoreFromEnv } from '../../src/broker/index.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import { CLI, runCli, type CliRun } from '../helpers/cli-run.js';
import { markerLines, startTaskFixtures, type TaskFixtures } from '../helpers/task-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpx-task-restart-'));
const env = {
  PATH: process.env.PATH ?? '',
  MCPX_STATE_DIR: join(dir, 'state'),
  MCPX_CONFIG_DIR: join(dir, 'config'),
  HOME: dir,
};
const run = (args: string[]): Promise<CliRun> => runCli(args, { cwd: dir, env, timeoutMs: 60_000 });
let fixtures: TaskFixtures | undefined;

beforeAll(async () => {
  fixtures = await startTaskFixtures();
  writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: fixtures.servers }));
  const started = await run(['daemon', 'start']);
  expect(started.code, started.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await run(['daemon', 'stop']);
  fixtures?.stop();
});

async function daemonPid(): Promise<number> {
  const status = await run(['daemon', 'status', '--json']);
  expect(status.code, status.stderr).toBe(0);
  return (JSON.parse(status.stdout) as { pid: number }).pid;
}

/** The daemon goes away while the task works: killed outright, or stopped the way a person stops it. */
async function endDaemon(how: 'SIGKILL' | 'stop'): Promise<void> {
  const pid = await daemonPid();
  if (how === 'stop') {
    const stopped = await run(['daemon', 'stop']);
    expect(stopped.code, stopped.stderr).toBe(0);
  } else process.kill(pid, 'SIGKILL');
  await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.each([
  ['tasks', 'SIGKILL'],
  ['modern', 'SIGKILL'],
  ['tasks', 'stop'],
  ['modern', 'stop'],
] as const)('an MCP task of %s whose daemon goes away (%s) while it works', (server, how) => {
  it('is followed by the next daemon, and mcpx task result from another process returns its result; the tool ran once', async () => {
    const marker = join(dir, `${server}-${how}.marker`);
    // The task asks first (so the call stops with a tsk- id to come back to), then works 4 s after its answer.
    const called = await run(['call', `${server}.ask_task`, 'topic=sky', 'after=4000', `marker=${marker}`, '--json']);
    expect(called.code, called.stderr).toBe(75);
    const { inputRequired } = JSON.parse(called.stdout) as { inputRequired: { task: string; questions: Array<{ id: string }> } };
    const answered = await run(['elicit', 'answer', inputRequired.questions[0]!.id, '{"colour":"teal"}']);
    expect(answered.code, answered.stderr).toBe(0);
    // Passed on is not yet at the server: the daemon goes away once the server has the answer.
    await expect.poll(() => markerLines(marker, 'answered'), { timeout: 10_000 }).toBe(1);

    await endDaemon(how);
    const restarted = await run(['daemon', 'start']);
    expect(restarted.code, restarted.stderr).toBe(0);

    const result = await run(['task', 'result', inputRequired.task, '--timeout', '30']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('sky: accept teal');
    expect(markerLines(marker, 'started')).toBe(1);
  }, 60_000);
});

describe.each(['SIGKILL', 'stop'] as const)(
  'a 2026-07-28 MCP task waiting on a question when its daemon goes away (%s)',
  (how) => {
    it('asks again through the next daemon: the old question is abandoned, the new one answered; the tool ran once', async () => {
      const marker = join(dir, `asks-again-${how}.marker`);
      const called = await run(['call', 'modern.ask_task', 'topic=dune', `marker=${marker}`, '--json']);
      expect(called.code, called.stderr).toBe(75);
      const { inputRequired } = JSON.parse(called.stdout) as {
        inputRequired: { task: string; questions: Array<{ id: string }> };
      };
      const old = inputRequired.questions[0]!.id;

      await endDaemon(how);
      const restarted = await run(['daemon', 'start']);
      expect(restarted.code, restarted.stderr).toBe(0);

      const question = await pendingQuestionOf(inputRequired.task);
      expect(question).not.toBe(old);
      const refused = await run(['elicit', 'answer', old, '{"colour":"grey"}']);
      expect(refused.code).toBe(1);
      const answered = await run(['elicit', 'answer', question, '{"colour":"sand"}']);
      expect(answered.code, answered.stderr).toBe(0);
      const result = await run(['task', 'result', inputRequired.task, '--timeout', '30']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('dune: accept sand');
      expect(markerLines(marker, 'started')).toBe(1);
    }, 60_000);
  },
);

/** The question of the task waiting now, once the daemon following it has asked it. */
async function pendingQuestionOf(task: string): Promise<string> {
  let question: string | undefined;
  await expect
    .poll(
      async () => {
        const listed = await run(['elicit', 'list', '--json']);
        const pending = (JSON.parse(listed.stdout) as { elicitations: Array<{ id: string; task?: string }> }).elicitations;
        return (question = pending.find((q) => q.task === task)?.id);
      },
      { timeout: 20_000 },
    )
    .toBeDefined();
  return question!;
}

describe('an MCP task whose daemon is killed before the task asks', () => {
  it('asks its question through the next daemon, answered from another process; the tool ran once', async () => {
    const marker = join(dir, 'asks-later.marker');
    // Held by the daemon until the question, 3 s on: the command is left running, as a person's would be.
    const call = execFile(process.execPath, [CLI, 'call', 'modern.ask_task', 'topic=sea', 'before=3000', `marker=${marker}`], {
      cwd: dir,
      env,
    });
    call.on('error', () => undefined);
    await expect.poll(() => existsSync(marker), { timeout: 20_000 }).toBe(true);
    // The record names the server's task as soon as the server made one (the command has not stopped yet).
    const store = await openStoreFromEnv(env);
    const tasks = createTaskStore(store.keyv);
    let task: string | undefined;
    await expect
      .poll(async () => (task = (await tasks.unfinished()).find((t) => t.tool === 'ask_task' && t.mcpTask)?.id), {
        timeout: 10_000,
      })
      .toBeDefined();
    await store.close();

    await endDaemon('SIGKILL');
    call.kill();
    const restarted = await run(['daemon', 'start']);
    expect(restarted.code, restarted.stderr).toBe(0);

    const question = await pendingQuestionOf(task!);
    const answered = await run(['elicit', 'answer', question, '{"colour":"coral"}']);
    expect(answered.code, answered.stderr).toBe(0);
    const result = await run(['task', 'result', task!, '--timeout', '30']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('sea: accept coral');
    expect(markerLines(marker, 'started')).toBe(1);
  }, 90_000);
});
