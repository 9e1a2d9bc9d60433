/**
 * `mcpx call` on a real terminal (tmux) with the built CLI: the default there is prompt, so the server's
 * question becomes a terminal form, and the call's result is printed once it is answered. A modern server that
 * asks over two rounds gets both forms; a question answered from another process makes the form give way.
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
/** One config, so one daemon, for every test here. */
let shared: ReturnType<typeof setup>;
afterEach(() => terminal?.close());
beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  shared = setup();
});
afterAll(async () => void (await shared.run(['daemon', 'stop'])));

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-prompt-'));
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({ mcpServers: { modern: { ...stdioFixture('dual-era'), era: 'modern' }, legacy: stdioFixture('legacy-v1') } }),
  );
  const env = { MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'config'), HOME: dir };
  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
      execFile(
        process.execPath,
        [cli, ...args],
        { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } },
        (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      ),
    );
  return { dir, env, run };
}

describe('mcpx call on a terminal (prompt)', () => {
  for (const server of ['legacy', 'modern'] as const) {
    it(`answers a ${server} server's question in the form and prints the real result`, async () => {
      const { dir, env } = shared;
      terminal = openTerminal(['sh', '-c', `${process.execPath} ${cli} call ${server}.ask_form title=x; echo "EXIT=$?"`], {
        cwd: dir,
        env,
      });
      const t = terminal;
      await t.waitFor('Answer this question?', 30_000);
      t.keys('Enter');
      await t.waitFor('owner/name');
      t.type('me/thing');
      t.keys('Enter');
      await t.waitFor('Private (optional)');
      t.keys('Enter');
      await t.waitFor('Priority (optional)');
      t.keys('Down', 'Enter'); // normal -> high
      const screen = await t.waitFor('EXIT=');
      expect(screen).toContain('EXIT=0');
      expect(screen).toMatch(/"details":\s*\{\s*"action":\s*"accept"/);
      expect(screen).toContain('me/thing');
      expect(screen).toContain('"high"');
    });
  }

  it('asks each round of a modern server that asks twice', async () => {
    const { dir, env } = shared;
    terminal = openTerminal(['sh', '-c', `${process.execPath} ${cli} call modern.ask_rounds; echo "EXIT=$?"`], { cwd: dir, env });
    const t = terminal;
    await t.waitFor('Answer this question?', 30_000);
    t.keys('Enter');
    await t.waitFor('owner/name');
    t.type('me/rounds');
    t.keys('Enter');
    await t.waitFor('Private (optional)');
    t.keys('Enter');
    await t.waitFor('Priority (optional)');
    t.keys('Enter');
    await t.waitFor(/Answer this question\?[\s\S]*Answer this question\?/);
    t.keys('Enter');
    await t.waitFor('Proceed?');
    t.keys('Left', 'Enter'); // No -> Yes
    const screen = await t.waitFor('EXIT=');
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/"rounds":\s*2/);
  });

  it('gives way when the question is answered from another process, then prints the result', async () => {
    const { dir, env, run } = shared;
    terminal = openTerminal(['sh', '-c', `${process.execPath} ${cli} call legacy.ask_form; echo "EXIT=$?"`], { cwd: dir, env });
    const t = terminal;
    await t.waitFor('Answer this question?', 30_000);
    const listed = await run(['elicit', 'list', '--json']);
    const id = (JSON.parse(listed.stdout) as { elicitations: Array<{ id: string }> }).elicitations[0]!.id;
    expect((await run(['elicit', 'decline', id])).code).toBe(0);
    const screen = await t.waitFor('EXIT=');
    expect(screen).toContain('answered elsewhere');
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/"details":\s*\{\s*"action":\s*"decline"/);
  });

  it('cancels on Ctrl-C and the server receives cancel', async () => {
    const { dir, env } = shared;
    terminal = openTerminal(['sh', '-c', `${process.execPath} ${cli} call modern.ask_form; echo "EXIT=$?"`], { cwd: dir, env });
    const t = terminal;
    await t.waitFor('Answer this question?', 30_000);
    t.keys('Enter');
    await t.waitFor('owner/name');
    t.keys('C-c');
    const screen = await t.waitFor('EXIT=');
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/"details":\s*\{\s*"action":\s*"cancel"/);
  });
});
