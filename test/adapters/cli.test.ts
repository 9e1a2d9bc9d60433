/**
 * The CLI adapter over a real program: `git` in a temporary repository. Reads run without a question; a command
 * marked `writes` asks first and runs only after accept; arguments never reach a shell and cannot become options.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import type { Answer, Question } from '../../src/types.js';

const gitEnv = {
  PATH: process.env.PATH ?? '',
  HOME: tmpdir(),
  GIT_AUTHOR_NAME: 'mcpx',
  GIT_AUTHOR_EMAIL: 'mcpx@example.com',
  GIT_COMMITTER_NAME: 'mcpx',
  GIT_COMMITTER_EMAIL: 'mcpx@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
};

const gitAdapter = (repo: string) => ({
  cli: 'git',
  cwd: repo,
  timeoutMs: 10_000,
  maxOutputBytes: 4096,
  commands: {
    status: { description: 'Short status.', args: ['status', '--porcelain=v1'] },
    log: {
      args: ['log', '--format=%s', { when: 'limit', args: ['-n', '{limit}'] }],
      input: { type: 'object', properties: { limit: { type: 'integer', minimum: 1 } } },
    },
    show_file: {
      args: ['show', 'HEAD:{path}'],
      input: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    add: {
      writes: true,
      args: ['add', '--', '{paths}'],
      input: {
        type: 'object',
        properties: { paths: { type: 'array', items: { type: 'string' }, minItems: 1 } },
        required: ['paths'],
      },
    },
    commit: {
      writes: true,
      args: ['commit', '-m', '{message}'],
      input: { type: 'object', properties: { message: { type: 'string', minLength: 1 } }, required: ['message'] },
    },
    branch: {
      writes: true,
      args: ['branch', '{name}'],
      input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    big_log: { args: ['log', '-p', '--all'] },
  },
});

let repo: string;
let mcpx: Mcpx | undefined;
let asked: Question[];
let answer: Answer;

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'mcpx-git-'));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo, env: gitEnv });
  writeFileSync(join(repo, 'README.md'), '# hello\n');
  execFileSync('git', ['add', 'README.md'], { cwd: repo, env: gitEnv });
  execFileSync('git', ['commit', '-q', '-m', 'first commit'], { cwd: repo, env: gitEnv });
  asked = [];
  answer = { action: 'accept', content: {} };
});
afterEach(async () => {
  await mcpx?.close();
  mcpx = undefined;
});

async function open(): Promise<Mcpx> {
  return createMcpx({
    config: { mcpServers: { git: gitAdapter(repo) } } as never,
    env: gitEnv,
    eraCache: createMemoryEraCache(),
    onElicit: async (question) => {
      asked.push(question);
      return answer;
    },
  });
}

const text = async (
  outcome: Promise<import('../../src/client/outcome.js').CallOutcome>,
): Promise<{ text: string; isError: boolean }> => {
  const done = await outcome;
  if (done.status !== 'complete') throw new Error(`expected a complete call, got ${done.status}`);
  return { text: (done.result.content as Array<{ text: string }>)[0]!.text, isError: done.result.isError === true };
};
const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env: gitEnv, encoding: 'utf8' });

describe('CLI adapter over git', () => {
  it('lists the commands as tools, writes marked', async () => {
    mcpx = await open();
    const tools = await mcpx.listTools('git');
    expect(tools.map((t) => t.name)).toEqual(['status', 'log', 'show_file', 'add', 'commit', 'branch', 'big_log']);
    expect(tools.find((t) => t.name === 'commit')).toMatchObject({
      annotations: { readOnlyHint: false, destructiveHint: true },
      inputSchema: { required: ['message'] },
    });
    expect(tools.find((t) => t.name === 'commit')!.description).toBe(
      'Runs: git commit -m {message}. Asks for confirmation before it runs.',
    );
  });

  it('runs reads without a question', async () => {
    mcpx = await open();
    expect(await text(mcpx.callTool('git', 'log', { limit: 1 }))).toEqual({ text: 'first commit\n', isError: false });
    expect(await text(mcpx.callTool('git', 'show_file', { path: 'README.md' }))).toEqual({ text: '# hello\n', isError: false });
    expect(asked).toEqual([]);
  });

  it('confirms a write, runs it after accept, and the repository shows it', async () => {
    writeFileSync(join(repo, 'notes.txt'), 'x\n');
    mcpx = await open();
    await text(mcpx.callTool('git', 'add', { paths: ['notes.txt'] }));
    const commit = await text(mcpx.callTool('git', 'commit', { message: "add notes; echo 'not a shell'" }));
    expect(commit.isError).toBe(false);
    expect(asked.map((q) => q.message)).toEqual([
      'run git add -- notes.txt: proceed?',
      "run git commit -m 'add notes; echo '\\''not a shell'\\''': proceed?",
    ]);
    expect(git('log', '--format=%s')).toBe("add notes; echo 'not a shell'\nfirst commit\n");
  });

  it('runs nothing after decline or cancel, and says which', async () => {
    mcpx = await open();
    answer = { action: 'decline' };
    expect(await text(mcpx.callTool('git', 'branch', { name: 'feature' }))).toEqual({
      text: 'not sent: the confirmation was declined (run git branch feature)',
      isError: true,
    });
    answer = { action: 'cancel' };
    expect(await text(mcpx.callTool('git', 'branch', { name: 'feature' }))).toEqual({
      text: 'not sent: the confirmation was cancelled (run git branch feature)',
      isError: true,
    });
    expect(git('branch', '--list')).toBe('* main\n');
  });

  it('refuses a value that would read as an option, before asking', async () => {
    mcpx = await open();
    const result = await text(mcpx.callTool('git', 'branch', { name: '--delete=main' }));
    expect(result).toEqual({
      text: 'branch: argument "name" is "--delete=main": a value starting with "-" would be read as an option',
      isError: true,
    });
    expect(asked).toEqual([]);
  });

  it('allows a dash value after "--" (git add -- -odd-name)', async () => {
    writeFileSync(join(repo, '-odd-name'), 'x\n');
    mcpx = await open();
    expect((await text(mcpx.callTool('git', 'add', { paths: ['-odd-name'] }))).isError).toBe(false);
    expect(git('status', '--porcelain=v1')).toBe('A  -odd-name\n');
  });

  it('stops a command that prints more than maxOutputBytes', async () => {
    for (let i = 0; i < 5; i++) {
      writeFileSync(join(repo, `f${i}.txt`), `${'line\n'.repeat(500)}`);
      git('add', '.');
      git('commit', '-q', '-m', `c${i}`);
    }
    mcpx = await open();
    expect(await text(mcpx.callTool('git', 'big_log', {}))).toEqual({
      text: 'git log -p --all: printed more than 4096 bytes (maxOutputBytes); stopped',
      isError: true,
    });
  });

  it('reports a failing command with its exit code and stderr', async () => {
    mcpx = await open();
    const result = await text(mcpx.callTool('git', 'show_file', { path: 'missing.txt' }));
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^git show HEAD:missing\.txt exited 128:\nfatal: path 'missing\.txt' does not exist in 'HEAD'/);
  });
});
