/**
 * The config's `web` block on the built CLI: the daemon opens the listener for paired devices itself at start, so a
 * device paired with `--pair` (no --listen) still reads the inbox with its cookie after `mcpx daemon stop` and a new
 * start. A listener the daemon may not open (plain HTTP off loopback) is reported; the rest of the daemon works.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

function sandbox(name: string) {
  const dir = mkdtempSync(join(tmpdir(), `mcpx-e2e-${name}-`));
  const env = {
    PATH: process.env.PATH ?? '',
    MCPX_STATE_DIR: join(dir, 'state'),
    MCPX_CONFIG_DIR: join(dir, 'config'),
    HOME: dir,
  };
  const mcpx = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(process.execPath, [cli, ...args], { cwd: dir, env, timeout: 60_000 }, (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      });
    });
  return { dir, mcpx };
}

/** A loopback port free now: the listener must come back on the same address after a restart. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** A request to the listener as a paired device makes it, trusting the self-signed certificate made here. */
function fetchTls(
  url: string,
  ca: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, ca }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end(options.body);
  });
}

const started: Array<ReturnType<typeof sandbox>> = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.mcpx(['daemon', 'stop'])));
});

describe('the config\'s "web" listener', () => {
  it('opens at daemon start, and a device paired without --listen reads the inbox again after a restart', async () => {
    const box = sandbox('web-listen');
    started.push(box);
    mkdirSync(join(box.dir, 'tls'));
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
        ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
        ...['-keyout', join(box.dir, 'tls', 'key.pem'), '-out', join(box.dir, 'tls', 'cert.pem')],
      ],
      { stdio: 'ignore' },
    );
    const ca = readFileSync(join(box.dir, 'tls', 'cert.pem'), 'utf8');
    const listen = `127.0.0.1:${await freePort()}`;
    // Paths relative to the config file's folder.
    writeFileSync(
      join(box.dir, 'mcpx.json'),
      JSON.stringify({ mcpServers: {}, web: { listen, cert: 'tls/cert.pem', key: 'tls/key.pem' } }),
    );

    expect((await box.mcpx(['daemon', 'start'])).code).toBe(0);
    const status = JSON.parse((await box.mcpx(['daemon', 'status', '--json'])).stdout) as {
      devices?: { url: string; listen: string };
    };
    expect(status.devices).toEqual({ url: `https://${listen}`, listen });
    // The state file names the paths' listener, never the key itself.
    const stateDir = join(box.dir, 'state');
    const files = readdirSync(stateDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(readFileSync(join(file.parentPath, file.name), 'latin1')).not.toContain('PRIVATE KEY');

    const paired = await box.mcpx(['elicit', 'web', '--pair', '--name', 'phone', '--json']);
    expect(paired.stderr).toBe('');
    expect(paired.code).toBe(0);
    const link = new URL((JSON.parse(paired.stdout) as { url: string }).url);
    expect(link.origin).toBe(`https://${listen}`);
    const code = link.hash.replace(/^#code=/, '');
    const session = await fetchTls(`${link.origin}/ui/session`, ca, {
      method: 'POST',
      headers: { origin: link.origin, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(session.status).toBe(200);
    const cookie = String(session.headers['set-cookie']).split(';')[0]!;
    expect((await fetchTls(`${link.origin}/v1/elicit`, ca, { headers: { cookie } })).status).toBe(200);

    expect((await box.mcpx(['daemon', 'stop'])).code).toBe(0);
    await expect(fetchTls(`${link.origin}/v1/elicit`, ca, { headers: { cookie } })).rejects.toThrow();
    expect((await box.mcpx(['daemon', 'start'])).code).toBe(0);

    const again = await fetchTls(`${link.origin}/v1/elicit`, ca, { headers: { cookie } });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body)).toHaveProperty('elicitations');
    // Without the cookie, nothing.
    expect((await fetchTls(`${link.origin}/v1/elicit`, ca)).status).toBe(401);
  }, 180_000);

  it('reports a listener it may not open (plain HTTP off loopback) and keeps serving everything else', async () => {
    const box = sandbox('web-listen-bad');
    started.push(box);
    writeFileSync(join(box.dir, 'mcpx.json'), JSON.stringify({ mcpServers: {}, web: { listen: `0.0.0.0:${await freePort()}` } }));

    expect((await box.mcpx(['daemon', 'start'])).code).toBe(0);
    const status = await box.mcpx(['daemon', 'status']);
    expect(status.stdout).toContain('running');
    expect(status.stdout).toMatch(/devices {2}not listening on 0\.0\.0\.0:\d+: Refusing to serve the inbox .* without TLS/);
    expect((await box.mcpx(['elicit', 'list', '--json'])).code).toBe(0);
    const pair = await box.mcpx(['elicit', 'web', '--pair']);
    expect(pair.code).toBe(1);
    expect(pair.stderr).toContain(`The config's "web" listener did not open`);
    expect(pair.stderr).toContain('without TLS');
  }, 120_000);

  it('refuses a malformed "web" block, naming the field', async () => {
    const box = sandbox('web-listen-schema');
    writeFileSync(join(box.dir, 'mcpx.json'), JSON.stringify({ mcpServers: {}, web: { listen: '0.0.0.0:8443', cert: 'c.pem' } }));
    const run = await box.mcpx(['list']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('field "web.key" is missing: TLS needs both "cert" and "key"');
  }, 60_000);
});
