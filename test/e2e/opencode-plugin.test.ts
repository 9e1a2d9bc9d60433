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
  writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: { legacy: stdioFixture('legacy-v1'), modern: { ...stdioFixture('dual-era'), era: 'modern' } } }));
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
    execFile(process.execPath, [cli, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env, ...extra } }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
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
async function agentCalls(shell: Record<string, string>, target: string, ...args: string[]): Promise<{ id: string; task: string }> {
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
  return { sessionID: session, messageID: 'm1', agent: 'build', directory: dir, worktree: dir, abort: new AbortController().signal, metadata: () => undefined, ask };
}

async function received(task: string): Promise<Record<string, { action: string; content?: Record<string, unknown> }>> {
  const result = await mcpx(['task', 'result', task, '--json']);
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { structuredContent: { received: Record<string, { action: string; content?: Record<string, unknown> }> } }).structuredContent.received;
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
    expect(await tools.mcpx_elicit_answer!.execute({ id, action: 'decline' }, context('ses_B'))).toContain(`No question ${id} waits in this session`);
    expect(await tools.mcpx_elicit_list!.execute({}, context('ses_A'))).toContain(id);
    expect(await tools.mcpx_elicit_answer!.execute({ id, action: 'accept', content: { repo: 'me/alpha' } }, context('ses_A'))).toContain(`Accepted ${id}`);
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
    expect(await hooks.tool!.mcpx_elicit_answer!.execute({ id: first.id, action: 'accept', content: { confirm: true } }, context('ses_C'))).toContain('is for the person');

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
    expect(await hooks.tool!.mcpx_elicit_ask!.execute({ id: third.id }, context('ses_D', async (r) => void elsewhere.push(r)))).toContain('No question');
    expect(elsewhere).toEqual([]);
    await mcpx(['elicit', 'cancel', third.id]);
  });
});
