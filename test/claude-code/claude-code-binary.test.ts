/**
 * The real Claude Code binary, headless and offline, with `mcpx hook claude-code` installed as its Elicitation hook:
 * the fixture server (configured in Claude Code itself, not behind `mcpx serve`) asks, the question appears in
 * `mcpx elicit list`, is answered with `mcpx elicit` from another process, and the server's echo (the tool result
 * Claude Code hands the model) shows what reached it. Both eras; nobody answering never yields accept or decline.
 *
 * `npm run test:claude-code` (not part of `npm test`): the binary (~370 MB) comes from scripts/install-claude-code.sh.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, runCli, type CliRun } from '../helpers/cli-run.js';
import { FIXTURE_PATHS } from '../helpers/fixture-servers.js';
import { startFakeMessagesApi, type FakeMessagesApi } from '../helpers/fake-messages-api.js';

const root = resolve(import.meta.dirname, '..', '..');
const claude = process.env.CLAUDE_CODE_BIN ?? join(root, '.tools', 'claude-code', 'node_modules', '.bin', 'claude');

let api: FakeMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

interface Run {
  project: string;
  env: Record<string, string>;
  /** Claude Code's exit and output, once its turn ends. */
  done: Promise<CliRun>;
}

function exec(file: string, args: string[], cwd: string, env: Record<string, string>): Promise<CliRun> {
  return new Promise((done) =>
    execFile(file, args, { cwd, env }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    ),
  );
}

/** Claude Code in a fresh HOME with the fixture as its `asker` server and mcpx as its hook, running `-p` once. */
async function runClaude(era: 'modern' | 'legacy', hookArgs: string[]): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-cc-binary-'));
  const project = join(dir, 'project');
  mkdirSync(project);
  api = await startFakeMessagesApi('mcp__asker__ask_form', { title: 'hooked' });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, 'home'),
    MCPX_STATE_DIR: join(dir, 'state'),
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'sk-ant-fake',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // -p sends its first request before a slow server's tools are listed unless told to wait for them.
    MCP_CONNECTION_NONBLOCKING: 'false',
    MCP_TIMEOUT: '60000',
    ...(era === 'legacy' ? { MCP_SDK_GENERATION: 'v1' } : {}),
  };
  mkdirSync(env.HOME!, { recursive: true });
  const installed = await runCli(['hook', 'claude-code', '--install', ...hookArgs], { cwd: project, env });
  expect(installed.code, installed.stderr).toBe(0);
  const added = await exec(
    claude,
    ['mcp', 'add', '--scope', 'user', 'asker', '--', process.execPath, FIXTURE_PATHS['dual-era'], '--stdio'],
    project,
    env,
  );
  expect(added.code, added.stderr).toBe(0);
  const child = spawn(claude, ['-p', 'make an issue', '--allowedTools', 'mcp__asker', '--output-format', 'json'], {
    cwd: project,
    env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end();
  const done = new Promise<CliRun>((resolveRun) => child.on('close', (code) => resolveRun({ code: code ?? 1, stdout, stderr })));
  return { project, env, done };
}

const mcpx = (run: Run, args: string[]): Promise<CliRun> => runCli(args, { cwd: run.project, env: run.env });

async function waitingQuestion(run: Run): Promise<{ id: string; server: string; tool: string; message: string }> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const listed = await mcpx(run, ['elicit', 'list', '--json']);
    const [question] = (
      JSON.parse(listed.stdout) as { elicitations: Array<{ id: string; server: string; tool: string; message: string }> }
    ).elicitations;
    if (question) return question;
    await new Promise((wake) => setTimeout(wake, 100));
  }
  throw new Error('the hook never opened a question in mcpx');
}

/** What the fixture received for its `details` question, from the tool result Claude Code passed to the model. */
async function received(run: Run): Promise<{ era: string; received: { details: { action: string; content?: unknown } } }> {
  const claudeRun = await run.done;
  expect(claudeRun.code, claudeRun.stderr).toBe(0);
  const text = api!.toolResult();
  expect(text, `no tool result reached the model; Claude Code said: ${claudeRun.stdout}`).toBeDefined();
  return JSON.parse(text!) as { era: string; received: { details: { action: string; content?: unknown } } };
}

describe('the real Claude Code with mcpx hook claude-code as its Elicitation hook', () => {
  // Run through `npm run test:claude-code`, which installs both first: a missing one fails here, never skips.
  it('Claude Code and the built mcpx are there', () => {
    expect(existsSync(claude), `${claude} is missing: bash scripts/install-claude-code.sh`).toBe(true);
    expect(existsSync(CLI), `${CLI} is missing: npx tsup`).toBe(true);
  });

  describe.each(['modern', 'legacy'] as const)('%s era', (era) => {
    it('accept: answered with mcpx elicit answer from another process, the server gets the content', async () => {
      const run = await runClaude(era, ['--wait', '90s']);
      const question = await waitingQuestion(run);
      expect(question).toMatchObject({ server: 'asker', tool: 'claude-code' });
      const answered = await mcpx(run, ['elicit', 'answer', question.id, 'repo=acme/hooked', 'priority=high']);
      expect(answered.code, answered.stderr).toBe(0);
      const echo = await received(run);
      expect(echo.era).toBe(era);
      expect(echo.received.details).toEqual({
        action: 'accept',
        content: { repo: 'acme/hooked', private: false, priority: 'high' },
      });
    });

    it.each(['decline', 'cancel'] as const)('%s reaches the server as itself', async (action) => {
      const run = await runClaude(era, ['--wait', '90s']);
      const question = await waitingQuestion(run);
      expect((await mcpx(run, ['elicit', action, question.id])).code).toBe(0);
      const echo = await received(run);
      expect(echo.era).toBe(era);
      expect(echo.received.details).toEqual({ action });
    });

    it('nobody answers: handed back, which -p ends as cancel (never accept or decline)', async () => {
      const run = await runClaude(era, ['--wait', '3s']);
      await waitingQuestion(run);
      const echo = await received(run);
      expect(echo.received.details).toEqual({ action: 'cancel' });
      const all = JSON.parse((await mcpx(run, ['elicit', 'list', '--state', 'all', '--json'])).stdout) as {
        elicitations: Array<{ state: string }>;
      };
      expect(all.elicitations.map((q) => q.state)).toEqual(['abandoned']);
    });
  });

  it('nobody answers with --no-answer cancel: the hook prints cancel', async () => {
    const run = await runClaude('modern', ['--wait', '3s', '--no-answer', 'cancel']);
    await waitingQuestion(run);
    const echo = await received(run);
    expect(echo.received.details).toEqual({ action: 'cancel' });
    const all = JSON.parse((await mcpx(run, ['elicit', 'list', '--state', 'all', '--json'])).stdout) as {
      elicitations: Array<{ state: string }>;
    };
    expect(all.elicitations.map((q) => q.state)).toEqual(['expired']);
  });
});
