/**
 * The opencode plugin loaded as opencode loads it (`import('mcpx/opencode')`, the built module's default export,
 * called with a PluginInput and the plugin's options), its hooks driven against a real daemon (the built CLI)
 * and fixture servers: the session binding, notify only in the asking session, the agent's tools refusing
 * another session's question, and ask answering through the permission dialog path while the call resumes.
 * opencode itself is stood in for by what it hands a plugin: a client that records toasts and a ToolContext
 * whose ask() resolves (allow) or rejects (deny), as opencode's permission prompt does.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Hooks, Plugin, PluginInput, ToolContext } from '@opencode-ai/plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

let dir: string;
let env: Record<string, string>;
const toasts: Array<{ title?: string; message: string }> = [];
const opened: Hooks[] = [];

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-opencode-'));
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({ mcpServers: { legacy: stdioFixture('legacy-v1'), modern: { ...stdioFixture('dual-era'), era: 'modern' } } }),
  );
  env = { MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'config'), HOME: dir };
  Object.assign(process.env, env); // the plugin reads opencode's environment
  expect((await mcpx(['daemon', 'start'])).code).toBe(0);
});
afterAll(async () => {
  for (const hooks of opened) await hooks.dispose?.();
  await mcpx(['daemon', 'stop']);
});

function mcpx(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env, ...extra } },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    ),
  );
}

async function loadPlugin(options?: Record<string, unknown>): Promise<Hooks> {
  const plugin = (await import('mcpx/opencode')).default as Plugin;
  const input = {
    client: { tui: { showToast: async ({ body }: { body: { title?: string; message: string } }) => void toasts.push(body) } },
    project: { id: 'p', worktree: dir, time: { created: Date.now() } },
    directory: dir,
    worktree: dir,
    serverUrl: new URL('http://127.0.0.1:4096'),
  } as unknown as PluginInput;
  const hooks = await plugin(input, options);
  opened.push(hooks);
  return hooks;
}

/** The environment opencode gives a shell command of `session`, through the plugin's shell.env hook. */
async function shellEnv(hooks: Hooks, session: string): Promise<Record<string, string>> {
  const output = { env: {} as Record<string, string> };
  await hooks['shell.env']!({ cwd: dir, sessionID: session }, output);
  return output.env;
}

/** What the agent's `mcpx call` in that shell does: exit 75 with the question; returns the question and task. */
async function agentCalls(
  shell: Record<string, string>,
  target: string,
  ...args: string[]
): Promise<{ id: string; task: string }> {
  const started = await mcpx(['call', target, ...args, '--json'], shell);
  expect(started.code).toBe(75);
  const { inputRequired } = JSON.parse(started.stdout) as { inputRequired: { task: string; questions: Array<{ id: string }> } };
  return { id: inputRequired.questions[0]!.id, task: inputRequired.task };
}

async function toolResult(hooks: Hooks, session: string): Promise<string> {
  const output = { title: 'bash', output: 'ok', metadata: {} };
  await hooks['tool.execute.after']!({ tool: 'bash', sessionID: session, callID: 'c1', args: {} }, output);
  return output.output;
}

function context(session: string, ask: ToolContext['ask'] = async () => undefined): ToolContext {
  return {
    sessionID: session,
    messageID: 'm1',
    agent: 'build',
    directory: dir,
    worktree: dir,
    abort: new AbortController().signal,
    metadata: () => undefined,
    ask,
  };
}

async function received(task: string): Promise<Record<string, { action: string; content?: Record<string, unknown> }>> {
  // The task is its opencode session's (bound as its questions are): read here as the operator.
  const result = await mcpx(['task', 'result', task, '--all', '--json']);
  expect(result.code).toBe(0);
  return (
    JSON.parse(result.stdout) as {
      structuredContent: { received: Record<string, { action: string; content?: Record<string, unknown> }> };
    }
  ).structuredContent.received;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`never happened: ${what}`);
}

describe('mcpx/opencode plugin', () => {
  it('binds the session: commands get MCPX_SESSION_ID, and questions go back to the call (return); auto means policy only', async () => {
    const hooks = await loadPlugin();
    expect(await shellEnv(hooks, 'ses_bind')).toEqual({ MCPX_SESSION_ID: 'ses_bind', MCPX_ELICIT: 'return' });
    expect(Object.keys(hooks.tool ?? {}).sort()).toEqual(['mcpx_elicit_answer', 'mcpx_elicit_ask', 'mcpx_elicit_list']);
    const auto = await loadPlugin({ elicit: 'auto' });
    expect(await shellEnv(auto, 'ses_auto')).toEqual({ MCPX_SESSION_ID: 'ses_auto', MCPX_ELICIT: 'auto' });
    expect(auto.tool).toBeUndefined();
  });

  it('notify: appends the question to a tool result and toasts only in the asking session; another session cannot see or answer it', async () => {
    const hooks = await loadPlugin({ elicit: 'notify' });
    const shellA = await shellEnv(hooks, 'ses_A');
    await shellEnv(hooks, 'ses_B');
    const { id, task } = await agentCalls(shellA, 'legacy.ask_form', 'title=alpha');

    const inA = await toolResult(hooks, 'ses_A');
    expect(inA).toContain(id);
    expect(inA).toContain('Where should "alpha" go?');
    expect(inA).toContain('never invent one');
    expect(await toolResult(hooks, 'ses_B')).toBe('ok');
    await until(() => toasts.some((t) => t.message.includes('alpha')), 'a toast for the question');
    expect(toasts.filter((t) => t.message.includes('alpha'))).toHaveLength(1);
    expect(toasts[0]?.title).toBe('legacy (via mcpx) asks');

    const tools = hooks.tool!;
    expect(await tools.mcpx_elicit_list!.execute({}, context('ses_B'))).toBe('No questions are waiting in this session.');
    expect(await tools.mcpx_elicit_answer!.execute({ id, action: 'decline' }, context('ses_B'))).toContain(
      `No question ${id} waits in this session`,
    );
    expect(await tools.mcpx_elicit_list!.execute({}, context('ses_A'))).toContain(id);
    expect(
      await tools.mcpx_elicit_answer!.execute({ id, action: 'accept', content: { repo: 'me/alpha' } }, context('ses_A')),
    ).toContain(`Accepted ${id}`);
    const details = (await received(task)).details;
    expect(details?.action).toBe('accept');
    expect(details?.content).toMatchObject({ repo: 'me/alpha' });
    expect(await toolResult(hooks, 'ses_A')).toBe('ok');
  });

  it('ask: the question goes through the permission dialog; allow accepts and deny declines, and the calls resume', async () => {
    const hooks = await loadPlugin({ elicit: 'ask' });
    const shell = await shellEnv(hooks, 'ses_C');
    const first = await agentCalls(shell, 'modern.ask_confirm', 'action=deploy');
    expect(await toolResult(hooks, 'ses_C')).toContain(`call mcpx_elicit_ask {"id":"${first.id}"}`);
    // The agent may not accept it in its own name at this level.
    expect(
      await hooks.tool!.mcpx_elicit_answer!.execute(
        { id: first.id, action: 'accept', content: { confirm: true } },
        context('ses_C'),
      ),
    ).toContain('is for the person');

    const asked: Array<{ permission: string; patterns: string[]; metadata: Record<string, unknown> }> = [];
    const allow = context('ses_C', async (request) => void asked.push(request));
    expect(await hooks.tool!.mcpx_elicit_ask!.execute({ id: first.id }, allow)).toContain(`Accepted ${first.id}`);
    expect(asked[0]).toMatchObject({ permission: 'mcpx_elicit', patterns: [first.id] });
    expect(String(asked[0]?.metadata.title)).toContain('modern.ask_confirm (via mcpx) asks: Really deploy?');
    expect((await received(first.task)).confirm).toEqual({ action: 'accept', content: { confirm: true } });

    const second = await agentCalls(shell, 'modern.ask_confirm', 'action=delete');
    const deny = context('ses_C', async () => {
      throw new Error('The user rejected permission to use this specific tool call.');
    });
    expect(await hooks.tool!.mcpx_elicit_ask!.execute({ id: second.id }, deny)).toContain(`Declined ${second.id}`);
    expect((await received(second.task)).confirm?.action).toBe('decline');
    // Another session's dialog never shows this session's question.
    const third = await agentCalls(shell, 'modern.ask_confirm', 'action=rename');
    const elsewhere: unknown[] = [];
    expect(
      await hooks.tool!.mcpx_elicit_ask!.execute(
        { id: third.id },
        context('ses_D', async (r) => void elsewhere.push(r)),
      ),
    ).toContain('No question');
    expect(elsewhere).toEqual([]);
    await mcpx(['elicit', 'cancel', third.id]);
  });

  it("ask: a form that needs values goes to opencode's question dialog with its exact fields, and the person's reply is recorded by the plugin; the calls resume", async () => {
    const hooks = await loadPlugin({ elicit: 'ask' });
    const shell = await shellEnv(hooks, 'ses_E');
    const first = await agentCalls(shell, 'legacy.ask_form', 'title=gamma');
    const asked = String(
      await hooks.tool!.mcpx_elicit_ask!.execute(
        { id: first.id },
        context('ses_E', async () => expect.fail('no yes/no prompt for a form that needs values')),
      ),
    );
    expect(asked).toContain('Call the question tool now with exactly these arguments');
    const prepared = JSON.parse(asked.split('\n')[1]!) as {
      questions: Array<{ header: string; question: string; options: Array<{ label: string }> }>;
    };
    expect(prepared.questions.map((q) => q.header)).toEqual(['Repository', 'Private', 'Priority', `mcpx ${first.id}`]);
    expect(prepared.questions[2]!.options.map((o) => o.label)).toEqual(['low', 'normal', 'high', 'Leave empty']);
    expect(prepared.questions[3]!.question).toContain('legacy (via mcpx) asks: Where should "gamma" go?');

    // The agent's question call, copied loosely: the plugin puts its own questions back before opencode shows them.
    const call = { questions: prepared.questions.map((q) => ({ ...q, question: 'something else', options: [] })) };
    await hooks['tool.execute.before']!({ tool: 'question', sessionID: 'ses_E', callID: 'q1' }, { args: call });
    expect(call.questions).toEqual(prepared.questions);
    // Another session cannot show this session's question in its dialog.
    await expect(
      hooks['tool.execute.before']!(
        { tool: 'question', sessionID: 'ses_F', callID: 'q2' },
        { args: { questions: prepared.questions } },
      ),
    ).rejects.toThrow('No question');

    // What opencode publishes while the person answers: the dialog opens, then the reply.
    await hooks.event!({
      event: { type: 'question.asked', properties: { id: 'que_1', sessionID: 'ses_E', questions: call.questions } },
    } as never);
    const answers = [['me/gamma'], ['Yes'], ['high'], ['Accept']];
    await hooks.event!({
      event: { type: 'question.replied', properties: { sessionID: 'ses_E', requestID: 'que_1', answers } },
    } as never);
    expect((await received(first.task)).details).toEqual({
      action: 'accept',
      content: { repo: 'me/gamma', private: true, priority: 'high' },
    });
    // The question tool's result tells the agent what was recorded (the reply is not recorded twice).
    const result = { title: 'Asked 4 questions', output: 'User has answered your questions: ...', metadata: { answers } };
    await hooks['tool.execute.after']!({ tool: 'question', sessionID: 'ses_E', callID: 'q1', args: call }, result);
    expect(result.output).toContain(`The person accepted ${first.id}; mcpx recorded it and the call goes on.`);
    expect(toasts.some((t) => t.message.includes(`accepted ${first.id}`))).toBe(true);

    // Decline is a choice in the dialog; dismissing the dialog cancels. Neither is collapsed into the other.
    const second = await agentCalls(shell, 'legacy.ask_form', 'title=delta');
    const secondArgs = JSON.parse(
      String(await hooks.tool!.mcpx_elicit_ask!.execute({ id: second.id }, context('ses_E'))).split('\n')[1]!,
    ) as { questions: unknown[] };
    // Only the tool's own result this time (no bus event reached the plugin): it records the reply itself.
    const declined = { title: 'Asked', output: 'answered', metadata: { answers: [['x/y'], [], [], ['Decline']] } };
    await hooks['tool.execute.after']!({ tool: 'question', sessionID: 'ses_E', callID: 'q3', args: secondArgs }, declined);
    expect(declined.output).toContain(`The person declined ${second.id}`);
    expect((await received(second.task)).details?.action).toBe('decline');

    const third = await agentCalls(shell, 'legacy.ask_form', 'title=epsilon');
    const thirdArgs = JSON.parse(
      String(await hooks.tool!.mcpx_elicit_ask!.execute({ id: third.id }, context('ses_E'))).split('\n')[1]!,
    ) as { questions: unknown[] };
    await hooks.event!({
      event: { type: 'question.asked', properties: { id: 'que_3', sessionID: 'ses_E', questions: thirdArgs.questions } },
    } as never);
    await hooks.event!({ event: { type: 'question.rejected', properties: { sessionID: 'ses_E', requestID: 'que_3' } } } as never);
    expect((await received(third.task)).details?.action).toBe('cancel');
  });

  it('ask: answers that do not fit the form are not sent, and the question still waits', async () => {
    const hooks = await loadPlugin({ elicit: 'ask' });
    const shell = await shellEnv(hooks, 'ses_G');
    const q = await agentCalls(shell, 'legacy.ask_form', 'title=zeta');
    const args = JSON.parse(
      String(await hooks.tool!.mcpx_elicit_ask!.execute({ id: q.id }, context('ses_G'))).split('\n')[1]!,
    ) as { questions: unknown[] };
    const result = { title: 'Asked', output: 'answered', metadata: { answers: [['ab'], ['Yes'], ['urgent'], ['Accept']] } };
    await hooks['tool.execute.after']!({ tool: 'question', sessionID: 'ses_G', callID: 'q4', args }, result);
    expect(result.output).toContain('priority: "urgent" is not one of the choices');
    // Seen and answered from the session that asked (a shell of ses_G).
    expect((await mcpx(['elicit', 'list', '--json'], { MCPX_SESSION_ID: 'ses_G' })).stdout).toContain(q.id);
    await mcpx(['elicit', 'cancel', q.id], { MCPX_SESSION_ID: 'ses_G' });
  });
});
