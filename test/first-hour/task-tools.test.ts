/**
 * Tools that require MCP task mode, through the built CLI: server-everything's `simulate-research-query` and the
 * task fixtures of both eras (test/fixtures/servers/tasks.mjs, tasks-modern.mjs). The listing marks them; a call runs as a task and prints its result;
 * a task's question waits (exit 75) for an answer from another process, and `mcpx task result` collects the result.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-run.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const fixtures = resolve(import.meta.dirname, '..', 'fixtures', 'servers');

const dir = mkdtempSync(join(tmpdir(), 'mcpx-task-tools-'));
writeFileSync(
  join(dir, 'mcpx.json'),
  JSON.stringify({
    mcpServers: {
      everything: { command: process.execPath, args: [everything, 'stdio'] },
      tasks: { command: process.execPath, args: [join(fixtures, 'tasks.mjs')] },
      modern: { command: process.execPath, args: [join(fixtures, 'tasks-modern.mjs')] },
    },
  }),
);
const env = {
  PATH: process.env.PATH ?? '',
  MCPX_STATE_DIR: join(dir, 'state'),
  MCPX_CONFIG_DIR: join(dir, 'config'),
  MCPX_DAEMON: 'inline',
  HOME: dir,
};

const run = (args: string[], extra: Record<string, string> = {}): Promise<CliRun> =>
  runCli(args, { cwd: dir, env: { ...env, ...extra }, timeoutMs: 60_000 });
/** Through the daemon, which holds the call (and the task's question) between commands. */
const viaDaemon = (args: string[]): Promise<CliRun> => run(args, { MCPX_DAEMON: '' });

interface Waiting {
  inputRequired: { task: string; questions: Array<{ id: string; message: string }> };
}

afterAll(async () => {
  await viaDaemon(['daemon', 'stop']);
});

describe('a tool that requires MCP task mode', () => {
  it('is marked in mcpx list, and only that tool', async () => {
    const listed = await run(['list', 'everything']);
    expect(listed.code, listed.stderr).toBe(0);
    const marked = listed.stdout.split('\n').filter((line) => line.includes('(MCP task'));
    expect(marked).toHaveLength(1);
    expect(marked[0]).toContain('simulate-research-query');
    expect(marked[0]).toContain('(MCP task)');
  });

  it('marks a tool that allows task mode apart from those that require it', async () => {
    const listed = await run(['list', 'tasks']);
    expect(listed.code, listed.stderr).toBe(0);
    const line = (name: string): string => listed.stdout.split('\n').find((l) => l.includes(`${name}(`)) ?? '';
    expect(line('count_task')).toContain('(MCP task)');
    expect(line('maybe_task')).toContain('(MCP task with --task)');
  });

  it('is called as a task and prints its result (exit 0)', async () => {
    const called = await run(['call', 'everything.simulate-research-query', 'topic=tides']);
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toContain('# Research Report: tides');
    expect(called.stderr).not.toContain('-32601');
  });

  it('calls a tool that allows task mode as a task with --task, and refuses --task for one that does not', async () => {
    const asked = await run(['call', 'tasks.maybe_task', 'word=hi', '--task']);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toContain('task hi');
    const refused = await run(['call', 'everything.echo', 'message=x', '--task', '--json']);
    expect(refused.code).toBe(1);
    expect((JSON.parse(refused.stdout) as { error: { code: string } }).error.code).toBe('TASKS_NOT_SUPPORTED');
  });

  it('is awaited by a script like any tool, its question answered by onElicit, in both eras', async () => {
    writeFileSync(
      join(dir, 'tasks-script.ts'),
      [
        "onElicit(async () => ({ action: 'accept', content: { colour: 'green' } }));",
        "const legacy = await tools.tasks.ask_task({ topic: 'leaf' });",
        "const modern = await tools.modern.ask_task({ topic: 'moss' });",
        "export default legacy.content[0].text + ' | ' + modern.content[0].text;",
      ].join('\n'),
    );
    const ran = await run(['run', 'tasks-script.ts']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('leaf: accept green | moss: accept green');
  });

  it('leaves the other tools callable', async () => {
    const called = await run(['call', 'everything.echo', 'message=still here']);
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toContain('still here');
  });
});

describe('a task that asks a question', () => {
  beforeAll(async () => {
    const started = await viaDaemon(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
  });

  /** Starts the call headless: exit 75 with the question and the task to come back to. */
  async function startAsking(target: string, ...args: string[]): Promise<{ task: string; question: string; message: string }> {
    const called = await viaDaemon(['call', target, ...args, '--json']);
    expect(called.code, called.stderr).toBe(75);
    const { inputRequired } = JSON.parse(called.stdout) as Waiting;
    expect(inputRequired.task).toMatch(/^tsk-[0-9a-f]{16}$/);
    expect(inputRequired.questions).toHaveLength(1);
    return { task: inputRequired.task, question: inputRequired.questions[0]!.id, message: inputRequired.questions[0]!.message };
  }

  it.each(['tasks', 'modern'])(
    'exits 75 headless, is answered from another process, and its result is collected with mcpx task result (%s)',
    async (server) => {
      const { task, question, message } = await startAsking(`${server}.ask_task`, 'topic=sky');
      expect(message).toBe('Which colour for sky?');
      // The record names the server's own task: what mcpx polls.
      const shown = await viaDaemon(['task', 'show', task, '--json']);
      expect(shown.code, shown.stderr).toBe(0);
      expect((JSON.parse(shown.stdout) as { task: { mcpTask?: unknown } }).task.mcpTask).toEqual({
        taskId: expect.any(String),
        era: server === 'modern' ? 'modern' : 'legacy',
      });
      const answered = await viaDaemon(['elicit', 'answer', question, '{"colour":"teal"}']);
      expect(answered.code, answered.stderr).toBe(0);
      const result = await viaDaemon(['task', 'result', task]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('sky: accept teal');
    },
  );

  it.each([
    ['decline', 'sky: decline'],
    ['cancel', 'sky: cancel'],
  ])('passes %s on to the server as given', async (verb, said) => {
    const { task, question } = await startAsking('tasks.ask_task', 'topic=sky');
    const answered = await viaDaemon(['elicit', verb, question]);
    expect(answered.code, answered.stderr).toBe(0);
    const result = await viaDaemon(['task', 'result', task]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(said);
  });

  it("finishes server-everything's research started in one process from another", async () => {
    const { task, question } = await startAsking('everything.simulate-research-query', 'topic=tides', 'ambiguous=true');
    const answered = await viaDaemon(['elicit', 'answer', question, '{"interpretation":"historical"}']);
    expect(answered.code, answered.stderr).toBe(0);
    const result = await viaDaemon(['task', 'result', task]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('# Research Report: tides (historical)');
  });
});
