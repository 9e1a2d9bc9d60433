/**
 * `mcpx run` on a real terminal (tmux) with the built CLI: `ask()` puts its question to the person in the same
 * terminal form as `mcpx call --elicit=prompt`, and the script passes the answer on to the server.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTerminal, type Terminal } from '../cli/helpers/tmux.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

let terminal: Terminal | undefined;
afterEach(() => terminal?.close());
beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
});

describe('mcpx run on a terminal (prompt)', () => {
  it("asks with the terminal form and the server receives the person's answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-run-prompt-'));
    const env = { MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'config'), HOME: dir };
    terminal = openTerminal(
      ['sh', '-c', `${process.execPath} ${cli} run examples/ask.ts --config examples/mcpx.json; echo "EXIT=$?"`],
      { cwd: root, env },
    );
    const t = terminal;
    await t.waitFor('Answer this question?', 30_000);
    expect(await t.waitFor('Which repository should the issue go in?')).toContain('script.ask asks');
    t.keys('Enter');
    await t.waitFor('owner/name');
    t.type('me/asked');
    t.keys('Enter');
    const screen = await t.waitFor('EXIT=', 30_000);
    expect(screen).toContain('ok: the issue goes in me/asked');
    expect(screen).toContain('EXIT=0');
  });
});
