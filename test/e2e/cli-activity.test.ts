/**
 * A spinner while a call runs, with the built CLI in a real terminal (tmux): `mcpx call` on a slow tool and
 * `mcpx task result` on a call waiting for an answer show one on stderr, wipe it before the result, and a pipe gets
 * none.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTerminal, type Terminal } from '../cli/helpers/tmux.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

let dir: string;
let env: Record<string, string>;
let terminal: Terminal | undefined;
afterEach(() => terminal?.close());

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-activity-'));
  writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: { fx: { ...stdioFixture('dual-era'), era: 'modern' } } }));
  env = { MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'config'), HOME: dir };
});

afterAll(() => run(['daemon', 'stop']));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

function inTerminal(args: string[]): Terminal {
  const command = ['env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, cli, ...args];
  terminal = openTerminal(['sh', '-c', `"$@"; echo "EXIT=$?"`, 'sh', ...command], { cwd: dir });
  return terminal;
}

describe('the spinner', () => {
  it('shows while a slow call runs on a terminal, and is gone when the result is printed', async () => {
    const t = inTerminal(['call', 'fx.sleep', 'ms=4000']);
    const running = await t.waitFor(/fx\.sleep \d+s/);
    expect(running).toMatch(SPINNER);
    const done = await t.waitFor('EXIT=');
    expect(done).toContain('EXIT=0');
    expect(done).toContain('"text": "slept 4000 ms"');
    expect(done).not.toMatch(/fx\.sleep \d+s/);
    expect(done).not.toMatch(SPINNER);
  });

  it('shows nothing when stderr is not a terminal', async () => {
    const piped = await run(['call', 'fx.sleep', 'ms=1500']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toContain('slept 1500 ms');
  });

  it('shows while mcpx task result waits, until the question is answered elsewhere', async () => {
    const asked = await run(['call', 'fx.ask_form', '--elicit=return', '--json']);
    expect(asked.code).toBe(75);
    const { inputRequired } = JSON.parse(asked.stdout) as { inputRequired: { task: string; questions: Array<{ id: string }> } };
    const t = inTerminal(['task', 'result', inputRequired.task]);
    const waiting = await t.waitFor(`waiting for ${inputRequired.task}`);
    expect(waiting).toMatch(SPINNER);
    const answered = await run(['elicit', 'answer', inputRequired.questions[0]!.id, 'repo=me/app']);
    expect(answered.code).toBe(0);
    const done = await t.waitFor('EXIT=');
    expect(done).toContain('EXIT=0');
    expect(done).toContain('"repo": "me/app"');
    expect(done).not.toContain(`waiting for ${inputRequired.task}`);
  });
});
