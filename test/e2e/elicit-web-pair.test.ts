/**
 * `mcpx elicit web --pair` on the built CLI: the daemon listens with TLS (a self-signed certificate made here),
 * a phone-sized Chromium context paired through the printed link answers the question a `mcpx call` waits on,
 * and after `--revoke` it can neither read nor answer; an unpaired context sees nothing; the link works once.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { launchChromium } from '../helpers/web-inbox.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-pair-'));
const env = { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'config'), HOME: dir };
const PHONE = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  ignoreHTTPSErrors: true,
  userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
};

function mcpx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [cli, ...args], { cwd: dir, env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/**
 * A `mcpx call` on a terminal (util-linux `script` gives it one) that puts its question in the terminal form and
 * waits; an answer from anywhere else (the phone) makes the form give way, and the call finishes with it.
 */
function waitingCall(title: string): { done: Promise<{ code: number | null; stdout: string }> } {
  const command = [process.execPath, cli, 'call', 'modern.ask_form', `title=${title}`, '--elicit', 'prompt', '--json'];
  return { done: onTerminal(command) };
}

/** A command on a terminal (util-linux `script` gives it one): its exit code and what it printed. */
function onTerminal(command: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn('script', ['-qec', command.map((word) => `'${word}'`).join(' '), '/dev/null'], {
    cwd: dir,
    env: { ...env, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout })));
}

async function pendingId(title: string): Promise<string> {
  let id: string | undefined;
  await expect
    .poll(
      async () => {
        const { elicitations } = JSON.parse((await mcpx(['elicit', 'list', '--all', '--json'])).stdout) as {
          elicitations: Array<{ id: string; message: string }>;
        };
        id = elicitations.find((q) => q.message.includes(`"${title}"`))?.id;
        return id;
      },
      { timeout: 30_000, interval: 250 },
    )
    .toBeDefined();
  return id!;
}

/** What the page's origin answers a request made from the page itself (its cookie; its Origin). */
const fromPage = (page: Page, path: string, method = 'GET') =>
  page.evaluate(
    async ([p, m]) => {
      const response = await fetch(p!, {
        method: m!,
        headers: { 'content-type': 'application/json' },
        body: m === 'GET' ? null : '{}',
      });
      return { status: response.status, body: await response.text() };
    },
    [path, method],
  );

describe('mcpx elicit web --pair', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let cert: string;
  let key: string;

  beforeAll(async () => {
    cert = join(dir, 'cert.pem');
    key = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    writeFileSync(
      join(dir, 'mcpx.json'),
      JSON.stringify({ mcpServers: { modern: { ...stdioFixture('dual-era'), era: 'modern' } } }),
    );
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.cleanup();
    await mcpx(['daemon', 'stop']);
  });

  it('refuses an address off loopback without TLS, saying what to do', async () => {
    const run = await mcpx(['elicit', 'web', '--pair', '--listen', '0.0.0.0:0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('without TLS');
    expect(run.stderr).toContain('--cert');
    expect(run.stderr).toContain('--behind-proxy');
  }, 60_000);

  it('pairs a phone that answers a waiting call, until it is revoked; nobody else sees anything', async () => {
    const paired = await mcpx([
      'elicit',
      'web',
      '--pair',
      '--name',
      'my phone',
      '--listen',
      '127.0.0.1:0',
      '--cert',
      cert,
      '--key',
      key,
      '--json',
    ]);
    expect(paired.stderr).toBe('');
    expect(paired.code).toBe(0);
    const link = new URL((JSON.parse(paired.stdout) as { url: string }).url);
    expect(link.protocol).toBe('https:');
    expect(link.hash).toMatch(/^#code=[\w-]{40,}$/);

    // The phone opens the link and is paired: its credential is an HttpOnly, Secure, SameSite=Strict cookie.
    const phoneContext: BrowserContext = await browser.newContext(PHONE);
    const phone = await phoneContext.newPage();
    await phone.goto(link.href);
    await phone.locator('#inbox').waitFor();
    expect(phone.url()).toBe(`${link.origin}/ui`);
    const cookies = await phoneContext.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict' });

    // It answers the question a call waits on, on a phone-sized screen, and the call finishes with that answer.
    const call = waitingCall('bug');
    const id = await pendingId('bug');
    const row = phone.locator(`li.question[data-id="${id}"] button`);
    await row.waitFor();
    expect(await phone.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)).toBeLessThanOrEqual(
      390,
    );
    await row.tap();
    await phone.getByLabel('Repository').fill('me/phone');
    const accept = phone.getByRole('button', { name: 'Accept' });
    expect((await accept.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await accept.tap();
    const finished = await call.done;
    expect(finished.code).toBe(0);
    expect(finished.stdout).toContain('me/phone');

    // The device is listed with its name, and revoked.
    const listed = JSON.parse((await mcpx(['elicit', 'web', '--devices', '--json'])).stdout) as {
      devices: Array<{ id: string; name: string; userAgent: string; lastSeenAt: number }>;
    };
    expect(listed.devices).toHaveLength(1);
    expect(listed.devices[0]).toMatchObject({ name: 'my phone' });
    expect(listed.devices[0]!.userAgent).toContain('iPhone');
    const second = waitingCall('later');
    const laterId = await pendingId('later');
    // Its event stream brings the new question (the list is behind the open answer on a phone).
    await phone.locator(`li.question[data-id="${laterId}"]`).waitFor({ state: 'attached' });
    const revoked = await mcpx(['elicit', 'web', '--revoke', listed.devices[0]!.id]);
    expect(revoked.code).toBe(0);

    // Revoked: it can neither read nor answer, and its page says it is signed out.
    const read = await fromPage(phone, '/v1/elicit');
    expect(read.status).toBe(401);
    expect(read.body).not.toContain(laterId);
    expect((await fromPage(phone, `/v1/elicit/${laterId}/decline`, 'POST')).status).toBe(401);
    await phone.locator('#signin').waitFor();
    expect((await mcpx(['elicit', 'web', '--devices', '--json'])).stdout).toContain('"devices": []');
    const still = JSON.parse((await mcpx(['elicit', 'list', '--all', '--json'])).stdout) as {
      elicitations: Array<{ id: string }>;
    };
    expect(still.elicitations.map((q) => q.id)).toContain(laterId);

    // An unpaired context sees nothing, and the used link pairs nobody.
    const strangerContext = await browser.newContext(PHONE);
    const stranger = await strangerContext.newPage();
    await stranger.goto(link.href);
    await stranger.locator('#signin').waitFor();
    expect(await stranger.locator('#signin').textContent()).toContain('used already or has expired');
    const peek = await fromPage(stranger, '/v1/elicit');
    expect(peek.status).toBe(401);
    expect(peek.body).not.toContain(laterId);
    expect(peek.body).not.toContain('later');
    expect(await strangerContext.cookies()).toHaveLength(0);

    await mcpx(['elicit', 'decline', laterId, '--all']);
    expect((await second.done).code).not.toBeNull();
    await phoneContext.close();
    await strangerContext.close();
  }, 180_000);

  it('on a terminal, prints the link as a QR code too (without a terminal, the link alone)', async () => {
    const command = [process.execPath, cli, 'elicit', 'web', '--pair', '--name', 'qr', '--listen', '127.0.0.1:0'];
    const { stdout: onTerminalOut } = await onTerminal(command);
    // qrcode-terminal's small form draws with half blocks; a code is many such lines of one width.
    const drawn = onTerminalOut.split(/\r?\n/).filter((line) => /^[\u2580\u2584\u2588 ]{20,}$/.test(line));
    expect(drawn.length).toBeGreaterThan(10);
    const plain = await mcpx(['elicit', 'web', '--pair', '--name', 'plain', '--listen', '127.0.0.1:0']);
    expect(plain.stdout).toContain('/ui#code=');
    expect(plain.stdout).not.toMatch(/[\u2580\u2584\u2588]/);
  }, 60_000);
});
