/**
 * `mcpx hook claude-code` as Claude Code runs it: the built CLI as its own process, the hook's JSON on stdin, the
 * question answered with `mcpx elicit` from another process, the hook's stdout checked. Nobody answering never
 * yields accept or decline. `--install` / `--uninstall` on a settings file that has other hooks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CLI, runCli, type CliRun } from '../helpers/cli-run.js';

let project: string;
let env: Record<string, string>;

beforeEach(() => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-cc-hook-'));
  project = join(dir, 'project');
  mkdirSync(project);
  env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), MCPX_STATE_DIR: join(dir, 'state'), NO_COLOR: '1' };
});

const SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

const hookInput = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    session_id: 'cc-session-1',
    transcript_path: '/dev/null',
    cwd: project,
    hook_event_name: 'Elicitation',
    mcp_server_name: 'asker',
    message: 'What is your name?',
    mode: 'form',
    requested_schema: SCHEMA,
    ...extra,
  });

/** The hook running, as Claude Code runs it: stdin written and closed, the result when it exits. */
function startHook(args: string[], input = hookInput(), started?: (child: ChildProcess) => void): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, 'hook', 'claude-code', ...args], { cwd: project, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(input);
  started?.(child);
  return new Promise((done) => child.on('close', (code) => done({ code: code ?? 1, stdout, stderr })));
}

const mcpx = (args: string[], cwd = project): Promise<CliRun> => runCli(args, { cwd, env });

interface Listed {
  id: string;
  server: string;
  tool: string;
  state: string;
  message: string;
  meta?: Record<string, unknown>;
}

async function listed(state = 'pending'): Promise<Listed[]> {
  const run = await mcpx(['elicit', 'list', '--json', '--state', state]);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { elicitations: Listed[] }).elicitations;
}

/** The hook's question, once `mcpx elicit list` in Claude Code's project shows it. */
async function waitingQuestion(): Promise<Listed> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const [question] = await listed();
    if (question) return question;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the hook never opened its question');
}

const output = (run: CliRun): unknown => JSON.parse(run.stdout);

describe('mcpx hook claude-code answers from another process', () => {
  it('accept with content: the question is listed in the project session and the content is printed', async () => {
    const hook = startHook(['--wait', '60s']);
    const question = await waitingQuestion();
    expect(question).toMatchObject({ server: 'asker', tool: 'claude-code', message: 'What is your name?' });
    expect(question.meta?.['io.mcpx/claude-code']).toEqual({ session_id: 'cc-session-1', cwd: project });
    const answered = await mcpx(['elicit', 'answer', question.id, 'name=Ada']);
    expect(answered.code, answered.stderr).toBe(0);
    const run = await hook;
    expect(run.code, run.stderr).toBe(0);
    expect(output(run)).toEqual({
      hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: { name: 'Ada' } },
    });
    const log = await mcpx(['log', '--chain', question.id, '--json']);
    const kinds = log.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { kind: string }).kind);
    expect(kinds).toEqual(expect.arrayContaining(['elicit.open', 'elicit.answered']));
  });

  it.each(['decline', 'cancel'] as const)('%s: printed as that action, with no content', async (action) => {
    const hook = startHook(['--wait', '60s']);
    const question = await waitingQuestion();
    expect((await mcpx(['elicit', action, question.id])).code).toBe(0);
    const run = await hook;
    expect(run.code, run.stderr).toBe(0);
    expect(output(run)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action } });
  });

  it('a url question: accept carries no content', async () => {
    const hook = startHook(
      ['--wait', '60s'],
      hookInput({ mode: 'url', url: 'https://example.com/authorize', elicitation_id: 'el-1', requested_schema: undefined }),
    );
    const question = await waitingQuestion();
    expect(question.meta?.['io.mcpx/claude-code']).toMatchObject({ elicitation_id: 'el-1' });
    expect((await mcpx(['elicit', 'answer', question.id])).code).toBe(0);
    expect(output(await hook)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept' } });
  });

  it('content that does not match the schema is refused and the question keeps waiting', async () => {
    const hook = startHook(['--wait', '60s']);
    const question = await waitingQuestion();
    const wrong = await mcpx(['elicit', 'answer', question.id, '{"name": 5}']);
    expect(wrong.code).toBe(1);
    expect((await mcpx(['elicit', 'answer', question.id, 'name=Grace'])).code).toBe(0);
    expect(output(await hook)).toMatchObject({ hookSpecificOutput: { action: 'accept', content: { name: 'Grace' } } });
  });

  it('with a daemon running, the answer given through its REST reaches the hook the same way', async () => {
    writeFileSync(join(project, 'mcpx.json'), JSON.stringify({ mcpServers: {} }));
    const started = await mcpx(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    try {
      const hook = startHook(['--wait', '60s']);
      const question = await waitingQuestion();
      expect((await mcpx(['elicit', 'answer', question.id, 'name=Lin'])).code).toBe(0);
      expect(output(await hook)).toMatchObject({ hookSpecificOutput: { action: 'accept', content: { name: 'Lin' } } });
    } finally {
      await mcpx(['daemon', 'stop']);
    }
  });

  it("the server's text is sanitised where mcpx shows it on a terminal", async () => {
    const hook = startHook(
      ['--wait', '60s'],
      hookInput({ message: 'Name?\u001b[2J\u001b]0;pwned\u0007 ok', mcp_server_name: 'ask\u001b[31mer' }),
    );
    const question = await waitingQuestion();
    const shown = await mcpx(['elicit', 'list']);
    expect(shown.stdout).toContain('Name?');
    expect(shown.stdout).not.toContain('\u001b');
    expect(shown.stdout).not.toContain('\u0007');
    await mcpx(['elicit', 'cancel', question.id]);
    const run = await hook;
    expect(run.stderr).not.toContain('\u001b');
  });

  it('a policy rule answers at once, and the rule is in the audit log', async () => {
    writeFileSync(
      join(project, 'mcpx.json'),
      JSON.stringify({
        mcpServers: {},
        elicit: { rules: [{ match: { server: 'asker' }, action: 'decline', because: 'no names here' }] },
      }),
    );
    const run = await startHook(['--wait', '60s']);
    expect(run.code, run.stderr).toBe(0);
    expect(output(run)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'decline' } });
    const log = await mcpx(['log', '--json']);
    expect(log.stdout).toContain('"policy.fired"');
    expect(log.stdout).toContain('no names here');
  });
});

describe("the config's notify list", () => {
  it('hears of the question the hook opens, as it would from the daemon', async () => {
    const received: Array<Record<string, unknown>> = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push(JSON.parse(body) as Record<string, unknown>);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      writeFileSync(join(project, 'mcpx.json'), JSON.stringify({ mcpServers: {}, notify: [{ webhook: url }] }));
      const hook = startHook(['--wait', '60s']);
      const question = await waitingQuestion();
      await expect
        .poll(() => received.map((event) => JSON.stringify(event)).join('\n'), { timeout: 10_000 })
        .toContain(question.id);
      expect(JSON.stringify(received[0])).toContain('asker');
      await mcpx(['elicit', 'cancel', question.id]);
      expect((await hook).code).toBe(0);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe('nobody answers: never accept or decline', () => {
  it('default (dialog): prints nothing, so Claude Code decides; the question is abandoned in mcpx', async () => {
    const run = await startHook(['--wait', '2s']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    const [question] = await listed('all');
    expect(question?.state).toBe('abandoned');
  });

  it('--no-answer cancel: prints cancel, the broker expiry answer', async () => {
    const run = await startHook(['--wait', '2s', '--no-answer', 'cancel']);
    expect(run.code, run.stderr).toBe(0);
    expect(output(run)).toEqual({ hookSpecificOutput: { hookEventName: 'Elicitation', action: 'cancel' } });
    const [question] = await listed('all');
    expect(question?.state).toBe('expired');
  });

  it('stopped by Claude Code (its hook timeout): nothing printed, the question abandoned, not left waiting', async () => {
    let child: ChildProcess | undefined;
    const hook = startHook(['--wait', '60s'], hookInput(), (c) => (child = c));
    await waitingQuestion();
    child!.kill('SIGTERM');
    const run = await hook;
    expect(run.stdout).toBe('');
    const [question] = await listed('all');
    expect(question?.state).toBe('abandoned');
  });

  it('input that is not an Elicitation event fails with 1 (2 would be a decline to Claude Code)', async () => {
    const run = await startHook([], '{"hook_event_name": "Elicitation", "message": "no server"}');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('mcp_server_name');
    const usage = await startHook(['--no-answer', 'maybe']);
    expect(usage.code).toBe(1);
    const wait = await startHook(['--wait', 'soon']);
    expect(wait.code).toBe(1);
    expect(wait.stderr).toContain('not a duration');
  });
});

describe('--install and --uninstall', () => {
  const others = {
    model: 'opus',
    permissions: { allow: ['Bash(ls:*)'] },
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit-bash' }] }],
      Elicitation: [{ matcher: 'github', hooks: [{ type: 'command', command: 'my-own-elicit-hook' }] }],
    },
  };
  const settingsFile = (): string => join(env.HOME!, '.claude', 'settings.json');
  const read = (): Record<string, unknown> => JSON.parse(readFileSync(settingsFile(), 'utf8')) as Record<string, unknown>;

  it('merges beside other hooks and settings, is idempotent, and uninstall leaves exactly what was there', async () => {
    mkdirSync(join(env.HOME!, '.claude'), { recursive: true });
    writeFileSync(settingsFile(), JSON.stringify(others, null, 2));
    const first = await mcpx(['hook', 'claude-code', '--install', '--wait', '90s', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ result: 'installed', settings: settingsFile() });
    const installed = read();
    expect(installed).toMatchObject({ model: 'opus', permissions: others.permissions });
    const hooks = installed.hooks as Record<string, Array<{ matcher: string; hooks: Array<Record<string, unknown>> }>>;
    expect(hooks.PreToolUse).toEqual(others.hooks.PreToolUse);
    expect(hooks.Elicitation![0]).toEqual(others.hooks.Elicitation[0]);
    const ours = hooks.Elicitation![1]!;
    expect(ours.matcher).toBe('');
    expect(ours.hooks[0]).toMatchObject({ type: 'command', timeout: 120 });
    expect(ours.hooks[0]!.command).toMatch(/cli\.js hook claude-code --wait 90s --no-answer dialog$/);

    const again = await mcpx(['hook', 'claude-code', '--install', '--wait', '90s', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ result: 'already installed' });
    expect(read()).toEqual(installed);

    // Installing with other options replaces mcpx's entry, never adds a second one.
    await mcpx(['hook', 'claude-code', '--install', '--wait', '3m', '--no-answer', 'cancel', '--command', 'mcpx']);
    const replaced = (read().hooks as typeof hooks).Elicitation!;
    expect(replaced).toHaveLength(2);
    expect(replaced[1]!.hooks[0]).toEqual({
      type: 'command',
      command: 'mcpx hook claude-code --wait 180s --no-answer cancel',
      timeout: 210,
    });

    const removed = await mcpx(['hook', 'claude-code', '--uninstall', '--json']);
    expect(JSON.parse(removed.stdout)).toMatchObject({ result: 'uninstalled' });
    expect(read()).toEqual(others);
    const twice = await mcpx(['hook', 'claude-code', '--uninstall', '--json']);
    expect(JSON.parse(twice.stdout)).toMatchObject({ result: 'not installed' });
  });

  it('--scope project writes .claude/settings.json in the project; a settings file that is not JSON is left alone', async () => {
    const run = await mcpx(['hook', 'claude-code', '--install', '--scope', 'project']);
    expect(run.code, run.stderr).toBe(0);
    const projectSettings = join(project, '.claude', 'settings.json');
    expect(existsSync(projectSettings)).toBe(true);
    expect(existsSync(settingsFile())).toBe(false);
    await mcpx(['hook', 'claude-code', '--uninstall', '--scope', 'project']);
    expect(JSON.parse(readFileSync(projectSettings, 'utf8'))).toEqual({});

    mkdirSync(join(env.HOME!, '.claude'), { recursive: true });
    writeFileSync(settingsFile(), '{"model": "opus",');
    const broken = await mcpx(['hook', 'claude-code', '--install']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('not valid JSON');
    expect(readFileSync(settingsFile(), 'utf8')).toBe('{"model": "opus",');
  });
});
