/**
 * The sign-in on a real terminal (tmux), with the built CLI: `mcpx call` to a server behind OAuth shows the sign-in
 * URL and its domain, sanitised, and waits for the person; choosing "Open it" hands the URL to BROWSER (here a
 * program that follows it as a browser would, back to the daemon's loopback), and the call's result is printed.
 * The authorization server publishes an endpoint carrying a terminal escape (a title change): it never reaches the
 * terminal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTerminal, type Terminal } from '../cli/helpers/tmux.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'test', 'fixtures', 'servers', 'protected-http.mjs');
const home = mkdtempSync(join(tmpdir(), 'mcpx-oauth-terminal-'));
const env = {
  HOME: home,
  MCPX_CONFIG_DIR: join(home, 'config'),
  MCPX_STATE_DIR: join(home, 'state'),
  MCPX_SECRET_STORE: 'file',
  BROWSER: join(home, 'browser.mjs'),
};

let server: ChildProcess;
let terminal: Terminal | undefined;

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  server = spawn(process.execPath, [fixture, '--oauth'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, FIXTURE_AUTHORIZE_QUERY: '?hint=\u001b]0;pwned\u0007' },
  });
  const url = await new Promise<string>((done) => createInterface({ input: server.stdout! }).once('line', done));
  mkdirSync(env.MCPX_CONFIG_DIR);
  writeFileSync(join(env.MCPX_CONFIG_DIR, 'mcpx.json'), JSON.stringify({ mcpServers: { notes: { url } } }));
  // The browser: follows the URL through the authorization server's redirect to the loopback callback.
  writeFileSync(env.BROWSER, `#!${process.execPath}\nawait fetch(process.argv[2]);\n`, { mode: 0o755 });
});

afterAll(async () => {
  terminal?.close();
  const stop = openTerminal(['sh', '-c', `${process.execPath} ${cli} daemon stop`], { cwd: home, env });
  await stop.waitFor(/\$|stopped|no daemon/i, 10_000).catch(() => undefined);
  stop.close();
  server?.kill();
});

describe('the sign-in on a terminal', () => {
  it('shows the URL and its domain sanitised, waits, opens it only when chosen, and prints the result', async () => {
    terminal = openTerminal(['sh', '-c', `${process.execPath} ${cli} call notes.whoami; echo "EXIT=$?"`], { cwd: home, env });
    const t = terminal;
    const asked = await t.waitFor('Open this page on 127.0.0.1?', 30_000);
    expect(asked).toContain('Sign in to "notes"');
    expect(asked).toMatch(/URL\s+http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    expect(asked).toMatch(/domain\s+127\.0\.0\.1/);
    // It waits for the person: nothing is opened, the command has not ended.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(t.screen()).not.toContain('EXIT=');
    expect(t.title()).not.toContain('pwned');
    t.keys('Up', 'Up', 'Enter'); // Cancel -> Decline -> Open it
    const screen = await t.waitFor('EXIT=', 30_000);
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/"sha256":\s*"[0-9a-f]{64}"/);
    expect(t.title()).not.toContain('pwned');
    expect(t.screen()).not.toContain('\u001b');
  });
});
