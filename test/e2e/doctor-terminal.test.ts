/**
 * `mcpx doctor` on a real terminal (tmux, the built CLI): the token a server needs (its config's `${DOCTOR_TOKEN}`,
 * unset) is asked in the terminal form, as other commands ask; once typed, the server is checked again and works,
 * and the token is in the secret store's file and no other.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTerminal, type Terminal } from '../cli/helpers/tmux.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const needsToken = join(root, 'test', 'fixtures', 'servers', 'needs-token.mjs');

const dir = mkdtempSync(join(tmpdir(), 'mcpx-doctor-tty-'));
const env = {
  MCPX_STATE_DIR: join(dir, 'state'),
  MCPX_CONFIG_DIR: join(dir, 'config'),
  HOME: dir,
  MCPX_SECRET_STORE: 'file',
};
let terminal: Terminal | undefined;
afterAll(async () => {
  terminal?.close();
  await new Promise((done) =>
    execFile(process.execPath, [cli, 'daemon', 'stop'], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } }, done),
  );
});

describe('mcpx doctor on a terminal', () => {
  it('asks for the token in the form, then finds the server working', async () => {
    writeFileSync(
      join(dir, 'mcpx.json'),
      JSON.stringify({
        mcpServers: { tok: { command: process.execPath, args: [needsToken], env: { FIXTURE_TOKEN: '${DOCTOR_TOKEN}' } } },
      }),
    );
    const token = 'tty-token-5f3a9c';
    terminal = openTerminal(['sh', '-c', `${process.execPath} ${cli} doctor; echo "EXIT=$?"`], { cwd: dir, env });
    const t = terminal;
    // The one field, hidden as a credential is.
    await t.waitFor('(input hidden', 30_000);
    t.type(token);
    t.keys('Enter');
    const screen = await t.waitFor('EXIT=', 30_000);
    expect(screen).toContain('EXIT=0');
    expect(screen).not.toContain(token);
    expect(screen).toMatch(/after the answers:\s*\n+\s*tok\s+works/);
    const holding = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && readFileSync(join(entry.parentPath, entry.name)).includes(token))
      .map((entry) => join(entry.parentPath, entry.name));
    expect(holding).toEqual([join(env.MCPX_STATE_DIR, 'secrets.json')]);
  });
});
