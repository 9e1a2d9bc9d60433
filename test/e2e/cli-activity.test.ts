/**
 * A spinner while a call runs, with the built CLI in a real terminal (tmux): `mcpx call` on a slow tool and
 * `mcpx task result` on a call waiting for an answer show one on stderr, wipe it before the result, and a pipe gets
 * none. A server's progress notifications (either era, through the daemon or inside the command) show on it as
 * progress/total and the message, sanitised; into a pipe the call sends no progress token.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTerminal, type Terminal } from '../cli/helpers/tmux.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

// A blink attribute and a window title (mcpx writes neither), and an 8-bit CSI: what a hostile server could put in a message.
const HOSTILE = 'hi \u001b[5mBLINK\u001b]0;pwned\u0007 \u009b31m';
const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const PROGRESS_FIXTURE = join(root, 'test', 'fixtures', 'servers', 'progress.mjs');
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

let dir: string;
let env: Record<string, string>;
let terminal: Terminal | undefined;
afterEach(() => terminal?.close());

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-activity-'));
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({
      mcpServers: {
        fx: { ...stdioFixture('dual-era'), era: 'modern' },
        // The dual-era fixture with a tool that reports progress, in each era.
        px: { command: process.execPath, args: [PROGRESS_FIXTURE], era: 'modern' },
        lx: { command: process.execPath, args: [PROGRESS_FIXTURE], era: 'legacy' },
      },
    }),
  );
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

function inTerminal(args: string[], extraEnv: Record<string, string> = {}): Terminal {
  const command = [
    'env',
    ...Object.entries({ ...env, ...extraEnv }).map(([k, v]) => `${k}=${v}`),
    process.execPath,
    cli,
    ...args,
  ];
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

describe("the server's progress on the spinner", () => {
  const PROGRESS = (server: string) => new RegExp(`${server}\\.progress \\d+s\\s+\\d+/40 \\[[#-]{10}\\] copying \\d+`);

  it('shows progress/total and the message of a modern call, from the daemon, and is gone with the result', async () => {
    const t = inTerminal(['call', 'px.progress', 'steps=40', 'everyMs=150', 'message=copying']);
    const running = await t.waitFor(PROGRESS('px'));
    expect(running).toMatch(SPINNER);
    const done = await t.waitFor('EXIT=');
    expect(done).toContain('EXIT=0');
    expect(done).toContain('"text": "40 steps"');
    expect(done).not.toMatch(/copying \d+/);
  });

  it('shows the progress of a legacy call', async () => {
    const t = inTerminal(['call', 'lx.progress', 'steps=40', 'everyMs=150', 'message=copying']);
    await t.waitFor(PROGRESS('lx'));
    expect(await t.waitFor('EXIT=')).toContain('EXIT=0');
  });

  it('shows progress with no daemon (the call runs inside the command)', async () => {
    const t = inTerminal(['call', 'px.progress', 'steps=40', 'everyMs=150', 'message=copying'], { MCPX_DAEMON: 'inline' });
    await t.waitFor(PROGRESS('px'));
    expect(await t.waitFor('EXIT=')).toContain('EXIT=0');
  });

  it("shows a hostile server's message without its escape sequences", async () => {
    const t = inTerminal(['call', 'px.progress', 'steps=40', 'everyMs=150', `message=${HOSTILE}`]);
    const shown = await t.waitFor(/px\.progress \d+s\s+\d+\/40 \[[#-]{10}\] hi BLINK\s+\d+/);
    expect(shown).not.toContain('31m');
    const styled = t.styledScreen();
    expect(styled).not.toContain('\u001b[5m');
    expect(styled).not.toContain('BLINK\u001b');
    expect(t.title()).not.toContain('pwned');
    expect(await t.waitFor('EXIT=')).toContain('EXIT=0');
    expect(t.title()).not.toContain('pwned');
  });

  it('shows the progress of a call mcpx task result waits on, once its question is answered elsewhere', async () => {
    const asked = await run([
      'call',
      'px.progress',
      'steps=40',
      'everyMs=150',
      'message=copying',
      'ask=true',
      '--elicit=return',
      '--json',
    ]);
    expect(asked.code).toBe(75);
    const { inputRequired } = JSON.parse(asked.stdout) as { inputRequired: { task: string; questions: Array<{ id: string }> } };
    const t = inTerminal(['task', 'result', inputRequired.task]);
    await t.waitFor(`waiting for ${inputRequired.task}`);
    const answered = await run(['elicit', 'answer', inputRequired.questions[0]!.id, 'confirm=true']);
    expect(answered.code).toBe(0);
    await t.waitFor(new RegExp(`waiting for ${inputRequired.task} \\d+s\\s+\\d+/40 \\[[#-]{10}\\] copying \\d+`));
    const done = await t.waitFor('EXIT=');
    expect(done).toContain('EXIT=0');
    expect(done).toContain('"text": "40 steps"');
  });

  it('changes nothing into a pipe: no progress token is sent, nothing is written to stderr', async () => {
    const piped = await run(['call', 'px.progress', 'steps=3', 'everyMs=100', 'message=copying']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toBe('{"tool":"progress","era":"modern","text":"3 steps","token":null}\n');
  });
});
