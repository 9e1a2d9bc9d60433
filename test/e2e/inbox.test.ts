/**
 * The terminal inbox (`mcpx elicit ui`) and the badge (`mcpx elicit count`), built CLI, in a real pseudo-terminal
 * (tmux), against a real daemon and fixture server: a question opened by a call appears live without a keypress,
 * and a / d / c reach the server as accept / decline / cancel (read from the call's own result).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { openTerminal, type Terminal } from '../cli/helpers/tmux.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

let terminal: Terminal | undefined;
let dir: string;
let env: Record<string, string>;
afterEach(() => terminal?.close());
beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-inbox-'));
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({ mcpServers: { legacy: stdioFixture('legacy-v1'), modern: { ...stdioFixture('dual-era'), era: 'modern' } } }),
  );
  env = { MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'config'), HOME: dir };
  expect((await mcpx(['daemon', 'start'])).code).toBe(0);
});
afterAll(async () => void (await mcpx(['daemon', 'stop'])));

function mcpx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    ),
  );
}

/** Starts a call that asks and returns its task (exit 75: the question waits in the daemon). */
async function ask(target: string, ...args: string[]): Promise<string> {
  const started = await mcpx(['call', target, ...args, '--elicit', 'return', '--json']);
  expect(started.code).toBe(75);
  return (JSON.parse(started.stdout) as { inputRequired: { task: string } }).inputRequired.task;
}

async function received(task: string): Promise<Record<string, { action: string; content?: Record<string, unknown> }>> {
  const result = await mcpx(['task', 'result', task, '--json']);
  expect(result.code).toBe(0);
  return (
    JSON.parse(result.stdout) as {
      structuredContent: { received: Record<string, { action: string; content?: Record<string, unknown> }> };
    }
  ).structuredContent.received;
}

function openInbox(command = 'elicit ui'): Terminal {
  terminal = openTerminal(['sh', '-c', `${process.execPath} ${cli} ${command}; echo "EXIT=$?"`], { cwd: dir, env });
  return terminal;
}

describe("mcpx elicit count (the program's own fast path)", () => {
  it('answers --help, and refuses arguments with a usage error and exit 2', async () => {
    const help = await mcpx(['elicit', 'count', '--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('usage: mcpx elicit count');
    const wrong = await mcpx(['elicit', 'count', 'elc-0000000000000000']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe('mcpx elicit: count takes no arguments, got "elc-0000000000000000"\nsee: mcpx elicit --help\n');
  });
});

describe('mcpx elicit ui', () => {
  it('shows a question live, and d / c reach the server as decline / cancel', async () => {
    const t = openInbox();
    await t.waitFor('no questions waiting', 30_000);
    expect((await mcpx(['elicit', 'count'])).stdout).toBe('');

    const declined = await ask('legacy.ask_form', 'title=first');
    // No key is pressed: the daemon's event brings the question in.
    await t.waitFor('● 1 question');
    expect(t.screen()).toContain('Where should "first" go?');
    expect((await mcpx(['elicit', 'count'])).stdout).toBe('mcpx: 1 waiting\n');
    t.type('d');
    await t.waitFor('declined elc-');
    expect((await received(declined)).details?.action).toBe('decline');

    const cancelled = await ask('modern.ask_confirm', 'action=deploy');
    await t.waitFor('Really deploy?');
    t.type('c');
    await t.waitFor('cancelled elc-');
    expect((await received(cancelled)).confirm?.action).toBe('cancel');
    await t.waitFor('no questions waiting');
    t.type('q');
    expect(await t.waitFor('EXIT=')).toContain('EXIT=0');
  });

  it('opens the detail with its fields, and a fills the terminal form and accepts (as mcpx inbox)', async () => {
    const t = openInbox('inbox');
    await t.waitFor('no questions waiting', 30_000);
    const first = await ask('legacy.ask_form', 'title=one');
    const second = await ask('modern.ask_form', 'title=two');
    await t.waitFor('● 2 questions');
    expect((await mcpx(['elicit', 'count', '--json'])).stdout).toBe('{"waiting":2}\n');

    t.keys('Down', 'Enter'); // the second question's detail
    await t.waitFor('Where should "two" go?');
    t.keys('Escape');
    await t.waitFor('↑/↓ choose');
    t.keys('Up', 'Enter'); // the first question's detail, with its fields
    await t.waitFor('fields');
    expect(t.screen()).toContain('Where should "one" go?');
    expect(t.screen()).toContain('one of low / normal / high');
    t.type('a');
    await t.waitFor(/◆\s+Repository/); // the terminal form's prompt, not the detail's field list
    t.type('me/inbox');
    t.keys('Enter');
    await t.waitFor('Private (optional)');
    t.keys('Enter');
    await t.waitFor('Priority (optional)');
    t.keys('Enter');
    await t.waitFor('answered elc-');
    const details = (await received(first)).details;
    expect(details?.action).toBe('accept');
    expect(details?.content).toMatchObject({ repo: 'me/inbox' });
    expect((await mcpx(['elicit', 'count'])).stdout).toBe('mcpx: 1 waiting\n');

    await t.waitFor('● 1 question');
    t.type('d');
    await t.waitFor('no questions waiting');
    expect((await received(second)).details?.action).toBe('decline');
    t.type('q');
    await t.waitFor('EXIT=');
  });
});
