/**
 * Readable output with the built CLI: on a terminal (tmux) a JSON result and the schemas of `mcpx list --schema`
 * are indented and coloured; into a pipe the result is exactly what the server sent; NO_COLOR and --no-color keep
 * a terminal plain, FORCE_COLOR colours a pipe; escape sequences a server sends never reach the terminal.
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
// A blink attribute (mcpx never writes one) and a window title: what a hostile server would slip into its text.
const HOSTILE = 'hi \u001b[5mBLINK\u001b]0;pwned\u0007 \u009b31m';
const SGR_COLOR = /\u001b\[(?:\d+;)*3[0-7]m/;

let dir: string;
let env: Record<string, string>;
let terminal: Terminal | undefined;
afterEach(() => terminal?.close());

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-color-'));
  writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: { fx: { ...stdioFixture('dual-era'), era: 'modern' } } }));
  env = { MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'config'), HOME: dir };
});

afterAll(() => run(['daemon', 'stop']));

function run(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string }> {
  return new Promise((done) =>
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env, ...extraEnv }, timeout: 60_000 },
      (error, stdout) => done({ code: error ? Number(error.code ?? 1) : 0, stdout }),
    ),
  );
}

/** Runs mcpx in a terminal and resolves with its screen, plain and with its colours, once it has exited. */
async function onTerminal(args: string[], extraEnv: Record<string, string> = {}): Promise<{ plain: string; styled: string }> {
  const command = [
    'env',
    '-u',
    'NO_COLOR',
    '-u',
    'FORCE_COLOR',
    ...Object.entries({ ...env, ...extraEnv }).map(([k, v]) => `${k}=${v}`),
    process.execPath,
    cli,
    ...args,
  ];
  const t = openTerminal(['sh', '-c', `"$@"; echo "EXIT=$?"`, 'sh', ...command], { cwd: dir });
  terminal = t;
  const plain = await t.waitFor('EXIT=');
  expect(plain).toContain('EXIT=0');
  expect(t.title()).not.toContain('pwned');
  return { plain, styled: t.styledScreen() };
}

describe('readable output', () => {
  it('indents and colours a JSON result on a terminal, without the escape sequences the server sent', async () => {
    const { plain, styled } = await onTerminal(['call', 'fx.no_ask', `text=${HOSTILE}`]);
    expect(plain).toMatch(/^ {2}"tool": "no_ask",$/m);
    expect(styled).toMatch(/\u001b\[36m"tool"/);
    expect(styled).toMatch(/\u001b\[32m"no_ask"/);
    expect(styled).not.toContain('\u001b[5m');
    expect(styled).not.toContain('BLINK\u001b');
  });

  it('prints exactly what the server sent into a pipe', async () => {
    const piped = await run(['call', 'fx.no_ask', 'text=hi']);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe('{"tool":"no_ask","era":"modern","received":{},"text":"hi"}\n');
  });

  it('keeps a terminal plain under NO_COLOR and --no-color, still indented', async () => {
    const byEnv = await onTerminal(['call', 'fx.no_ask', 'text=hi'], { NO_COLOR: '1' });
    expect(byEnv.plain).toMatch(/^ {2}"tool": "no_ask",$/m);
    expect(byEnv.styled).not.toMatch(SGR_COLOR);
    terminal?.close();
    const byFlag = await onTerminal(['call', 'fx.no_ask', 'text=hi', '--no-color'], { FORCE_COLOR: '1' });
    expect(byFlag.plain).toMatch(/^ {2}"tool": "no_ask",$/m);
    expect(byFlag.styled).not.toMatch(SGR_COLOR);
  });

  it('colours a pipe under FORCE_COLOR', async () => {
    const forced = await run(['call', 'fx.no_ask', 'text=hi'], { FORCE_COLOR: '1' });
    expect(forced.stdout).toContain('\u001b[36m"tool"\u001b[39m: \u001b[32m"no_ask"\u001b[39m');
    const json = await run(['call', 'fx.no_ask', 'text=hi', '--json'], { FORCE_COLOR: '1' });
    expect(json.stdout).toContain('\u001b[36m"structuredContent"\u001b[39m');
  });

  it("colours a server's tools and schemas on a terminal", async () => {
    const { plain, styled } = await onTerminal(['list', 'fx', '--schema']);
    expect(plain).toMatch(/^ {2}no_ask\(text\?: string\)$/m);
    expect(plain).toMatch(/^ {4}input schema: \{$/m);
    expect(styled).toMatch(/\u001b\[1mno_ask/);
    expect(styled).toMatch(/\u001b\[36m"properties"/);
    const piped = await run(['list', 'fx', '--schema']);
    expect(piped.stdout).toMatch(/^ {2}no_ask\(text\?: string\)$/m);
    expect(piped.stdout).not.toContain('\u001b');
  });
});

describe('error lines', () => {
  const RED_LEAD = /\u001b\[31mmcpx:/;

  /** Runs mcpx in a terminal that is expected to exit with `exit`; resolves with its screen, plain and styled. */
  async function failingOnTerminal(
    args: string[],
    exit: number,
    extraEnv: Record<string, string> = {},
  ): Promise<{ plain: string; styled: string }> {
    const command = [
      'env',
      '-u',
      'NO_COLOR',
      '-u',
      'FORCE_COLOR',
      ...Object.entries({ ...env, ...extraEnv }).map(([k, v]) => `${k}=${v}`),
      process.execPath,
      cli,
      ...args,
    ];
    const t = openTerminal(['sh', '-c', `"$@"; echo "EXIT=$?"`, 'sh', ...command], { cwd: dir });
    terminal = t;
    const plain = await t.waitFor('EXIT=');
    expect(plain).toContain(`EXIT=${exit}`);
    return { plain, styled: t.styledScreen() };
  }

  function runWithStderr(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
    return new Promise((done) =>
      execFile(
        process.execPath,
        [cli, ...args],
        { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env, ...extraEnv }, timeout: 60_000 },
        (error, _stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stderr }),
      ),
    );
  }

  it('starts an error with a red mcpx: on a terminal, the message itself plain', async () => {
    const { plain, styled } = await failingOnTerminal(['call', 'nosuch.tool'], 1);
    expect(plain).toMatch(/^mcpx: no server named "nosuch".*\[SERVER_NOT_FOUND\]/m);
    expect(styled).toMatch(/\u001b\[31mmcpx:\u001b\[39m no server named/);
    terminal?.close();
    const usage = await failingOnTerminal(['call'], 2);
    expect(usage.plain).toMatch(/^mcpx call: /m);
    expect(usage.styled).toMatch(/\u001b\[31mmcpx call:\u001b\[39m /);
    terminal?.close();
    const unknown = await failingOnTerminal(['nosuchcommand'], 2);
    expect(unknown.plain).toContain('mcpx: unknown command "nosuchcommand".');
    expect(unknown.styled).toMatch(RED_LEAD);
  });

  it('keeps an error plain on a terminal under NO_COLOR, --no-color and TERM=dumb', async () => {
    for (const [args, extraEnv] of [
      [['call', 'nosuch.tool'], { NO_COLOR: '1' }],
      [['call', 'nosuch.tool', '--no-color'], { FORCE_COLOR: '1' }],
      [['call', 'nosuch.tool'], { TERM: 'dumb' }],
    ] as Array<[string[], Record<string, string>]>) {
      const { plain, styled } = await failingOnTerminal(args, 1, extraEnv);
      expect(plain).toMatch(/^mcpx: no server named "nosuch"/m);
      expect(styled).not.toMatch(SGR_COLOR);
      terminal?.close();
    }
  });

  it('writes an error into a pipe exactly as before, and in red under FORCE_COLOR', async () => {
    const piped = await runWithStderr(['call', 'nosuch.tool']);
    expect(piped.code).toBe(1);
    expect(piped.stderr).toMatch(/^mcpx: no server named "nosuch".*\[SERVER_NOT_FOUND\]\n$/);
    expect(piped.stderr).not.toContain('\u001b');
    const forced = await runWithStderr(['call', 'nosuch.tool'], { FORCE_COLOR: '1' });
    expect(forced.stderr).toMatch(/^\u001b\[31mmcpx:\u001b\[39m no server named "nosuch"/);
  });
});
