/**
 * The terminal form on a long form, with the built CLI in a real terminal (tmux): `mcpx call` against a server
 * that asks twelve fields. No MaxListenersExceededWarning (each prompt added an abort listener that stayed), an
 * optional boolean can be left unset, and the fields left can be taken at their defaults in one step.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTerminal, type Terminal } from '../cli/helpers/tmux.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const server = join(import.meta.dirname, 'fixtures', 'long-form-server.mjs');

let terminal: Terminal | undefined;
let dir: string;
let env: Record<string, string>;
afterEach(() => terminal?.close());
beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-long-form-'));
  writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: { long: { command: process.execPath, args: [server] } } }));
  env = { MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'config'), HOME: dir };
});
afterAll(
  () =>
    new Promise<void>((done) =>
      execFile(process.execPath, [cli, 'daemon', 'stop'], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } }, () =>
        done(),
      ),
    ),
);

function callLongForm(): Terminal {
  terminal = openTerminal(['sh', '-c', `${process.execPath} ${cli} call long.ask_long; echo "EXIT=$?"`], { cwd: dir, env });
  return terminal;
}

async function answerName(t: Terminal): Promise<void> {
  await t.waitFor('Answer this question?', 30_000);
  t.keys('Enter');
  await t.waitFor('Name');
  t.type('me');
  t.keys('Enter');
  await t.waitFor('The 11 fields left are optional or have defaults');
}

describe('the terminal form on a long form', () => {
  it('asks every field without a listener warning and leaves an optional boolean unset', async () => {
    const t = callLongForm();
    await answerName(t);
    t.keys('Enter'); // Fill them in
    await t.waitFor('(leave unset)');
    t.keys('Down', 'Enter'); // No -> (leave unset)
    for (let i = 1; i <= 10; i++) {
      await t.waitFor(`opt${i} (optional)`);
      t.keys('Enter'); // keeps the default
    }
    const screen = await t.waitFor('EXIT=');
    expect(screen).toContain('EXIT=0');
    expect(screen).not.toContain('MaxListenersExceededWarning');
    const received = JSON.parse(screen.slice(screen.indexOf('{'), screen.lastIndexOf('}') + 1)) as {
      received: { action: string; content: Record<string, unknown> };
    };
    expect(received.received.action).toBe('accept');
    expect(received.received.content).not.toHaveProperty('notify');
    expect(received.received.content).toMatchObject({ name: 'me', opt1: 'd0', opt2: 1, opt10: 9 });
  });

  it('takes the defaults for the rest in one step', async () => {
    const t = callLongForm();
    await answerName(t);
    t.keys('Down'); // Accept the defaults for the rest: its hint shows what they are
    await t.waitFor('opt1 = "d0", opt2 = 1');
    t.keys('Enter');
    const screen = await t.waitFor('EXIT=');
    expect(screen).toContain('EXIT=0');
    expect(screen).not.toContain('opt1 (optional)');
    const received = JSON.parse(screen.slice(screen.indexOf('{'), screen.lastIndexOf('}') + 1)) as {
      received: { action: string; content: Record<string, unknown> };
    };
    expect(received.received).toEqual({
      action: 'accept',
      content: {
        name: 'me',
        opt1: 'd0',
        opt2: 1,
        opt3: 'd2',
        opt4: 3,
        opt5: 'd4',
        opt6: 5,
        opt7: 'd6',
        opt8: 7,
        opt9: 'd8',
        opt10: 9,
      },
    });
  });
});
