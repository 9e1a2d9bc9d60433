/**
 * `mcpx elicit web` on the built CLI: it starts a daemon with a loopback port, prints a link whose fragment
 * carries a one-time code, and the daemon (from dist/) serves the inbox page and trades the code, once, for a
 * session cookie that answers with `by: 'web'`.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-web-'));
const env = { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'config'), HOME: dir };

function mcpx(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: dir, env: { ...env, ...extra }, timeout: 60_000 },
      (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('mcpx elicit web', () => {
  afterAll(async () => {
    await mcpx(['daemon', 'stop']);
    await mcpx(['daemon', 'stop'], { MCPX_STATE_DIR: join(dir, 'state-no-port') });
  });

  it('prints a sign-in link the daemon it started honours once', async () => {
    expect(existsSync(cli)).toBe(true);
    writeFileSync(
      join(dir, 'mcpx.json'),
      JSON.stringify({ mcpServers: { modern: { ...stdioFixture('dual-era'), era: 'modern' } } }),
    );
    const run = await mcpx(['elicit', 'web', '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const { url } = JSON.parse(run.stdout) as { url: string };
    const link = new URL(url);
    expect(link.hostname).toBe('127.0.0.1');
    expect(link.pathname).toBe('/ui');
    const code = new URLSearchParams(link.hash.slice(1)).get('code')!;
    expect(code).toMatch(/^[\w-]{40,}$/);

    const page = await fetch(new URL('/ui', link));
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await page.text()).toContain('<script type="module" src="/ui/assets/inbox.js">');
    expect((await fetch(new URL('/ui/assets/form.js', link))).status).toBe(200);
    expect((await fetch(new URL('/v1/elicit', link))).status).toBe(401);

    const exchange = () =>
      fetch(new URL('/ui/session', link), {
        method: 'POST',
        headers: { origin: link.origin, 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
    const first = await exchange();
    expect(first.status).toBe(200);
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect((await exchange()).status).toBe(401);
    const list = await fetch(new URL('/v1/elicit', link), { headers: { cookie: cookie.split(';')[0]! } });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ elicitations: [] });

    // The text form of the same command: the link on a line of its own.
    const text = await mcpx(['elicit', 'web']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ {2}http:\/\/127\.0\.0\.1:\d+\/ui#code=[\w-]+$/m);
  });

  it('opens the link with --open, through BROWSER', async () => {
    const opened = join(dir, 'opened.txt');
    const browser = join(dir, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > ${JSON.stringify(opened)}\n`);
    chmodSync(browser, 0o755);
    const run = await mcpx(['elicit', 'web', '--open', '--json'], { BROWSER: browser });
    expect(run.code).toBe(0);
    const { url } = JSON.parse(run.stdout) as { url: string };
    await expect.poll(() => (existsSync(opened) ? readFileSync(opened, 'utf8') : '')).toBe(url);
  });

  it('opens the port of a daemon started without one', async () => {
    const noPort = { MCPX_STATE_DIR: join(dir, 'state-no-port') };
    expect((await mcpx(['daemon', 'start'], noPort)).code).toBe(0);
    expect(JSON.parse((await mcpx(['daemon', 'status', '--json'], noPort)).stdout).port).toBeUndefined();
    const run = await mcpx(['elicit', 'web', '--json'], noPort);
    expect(run.stderr).toBe('');
    const link = new URL((JSON.parse(run.stdout) as { url: string }).url);
    const status = JSON.parse((await mcpx(['daemon', 'status', '--json'], noPort)).stdout) as { port?: number };
    expect(status.port).toBe(Number(link.port));
    expect((await fetch(new URL('/ui', link))).status).toBe(200);
    // A second link reuses the port.
    const again = new URL((JSON.parse((await mcpx(['elicit', 'web', '--json'], noPort)).stdout) as { url: string }).url);
    expect(again.port).toBe(link.port);
  });
});
