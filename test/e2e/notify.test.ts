/**
 * Notifications end to end, the way a user has them: the built CLI's `mcpx call` through its daemon, a webhook
 * receiver on loopback (node:http, here), a command sink, the real secret store, and `mcpx log` for the audit.
 */
import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecretStore } from '../../src/secrets/index.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { serveSetup, textOf, v1Client } from '../helpers/serve.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const needsToken = join(root, 'test', 'fixtures', 'servers', 'needs-token.mjs');

interface Post {
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, any>;
  at: number;
}

/** A webhook receiver: records every POST and answers 200; `hang` accepts and never answers. */
async function receiver(hang = false): Promise<{ url: string; posts: Post[]; server: Server }> {
  const posts: Post[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      posts.push({ headers: req.headers, body, json: JSON.parse(body), at: Date.now() });
      if (!hang) res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, posts, server };
}

/** A port nothing listens on: one a server just let go of. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

interface Place {
  dir: string;
  stateDir: string;
  run(
    args: string[],
    input?: string,
    extraEnv?: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
}

function place(config: unknown): Place {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-notify-'));
  const stateDir = join(dir, 'state');
  writeFileSync(join(dir, 'mcpx.json'), JSON.stringify(config, null, 2));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    MCPX_STATE_DIR: stateDir,
    MCPX_CONFIG_DIR: join(dir, 'config'),
    MCPX_SECRET_STORE: 'file',
  };
  const run: Place['run'] = (args, input, extraEnv = {}) =>
    new Promise((done) => {
      const options = { cwd: dir, env: { ...env, ...extraEnv }, timeout: 60_000 };
      const child = execFile(process.execPath, [cli, ...args], options, (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
      child.stdin?.end(input ?? '');
    });
  return { dir, stateDir, run };
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const idOf = (stdout: string): string => {
  const id = /elc-[0-9a-f]{16}/.exec(stdout)?.[0];
  if (!id) throw new Error(`no question id in: ${stdout}`);
  return id;
};

async function auditOf(p: Place): Promise<Array<Record<string, any>>> {
  const log = await p.run(['log', '--json', '--limit', '1000']);
  return log.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
}

const places: Place[] = [];
const servers: Server[] = [];
beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
});
afterAll(async () => {
  await Promise.all(places.map((p) => p.run(['daemon', 'stop'])));
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

describe('a question that opens through mcpx call', () => {
  const key = randomBytes(16).toString('hex');
  let hook: Awaited<ReturnType<typeof receiver>>;
  let p: Place;
  let outDir: string;

  beforeAll(async () => {
    hook = await receiver();
    servers.push(hook.server);
    outDir = mkdtempSync(join(tmpdir(), 'mcpx-notify-out-'));
    const sink = join(outDir, 'sink.mjs');
    // A command sink: what it reads on stdin, written to a file of its own.
    writeFileSync(
      sink,
      `import { writeFileSync } from 'node:fs';
let s = '';
process.stdin.on('data', (d) => (s += d)).on('end', () => writeFileSync(${JSON.stringify(outDir)} + '/' + Date.now() + '-' + process.pid + '.json', s));
`,
    );
    p = place({
      mcpServers: {
        legacy: stdioFixture('legacy-v1'),
        tok: { command: process.execPath, args: [needsToken], env: { FIXTURE_TOKEN: { ask: 'the API token', secret: true } } },
      },
      notify: [
        { webhook: hook.url, secret: { ask: 'the signing key', secret: true }, on: ['opened', 'answered'] },
        { command: [process.execPath, sink], on: ['opened', 'answered'] },
      ],
    });
    places.push(p);
    await (await openSecretStore({ stateDir: p.stateDir, prefer: 'file' })).set('notify', 'webhook[0].secret', key);
  });

  const commandPayloads = (): Array<Record<string, any>> =>
    readdirSync(outDir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(join(outDir, name), 'utf8')) as Record<string, any>);

  it('reaches the webhook signed, and the command on its stdin, with what the question asks', async () => {
    const call = await p.run(['call', 'legacy.ask_form']);
    expect(call.code, call.stderr).toBe(75);
    const id = idOf(call.stdout);

    const post = await waitFor('the POST', () => hook.posts.find((x) => x.json.id === id && x.json.event === 'opened'));
    const signature = `sha256=${createHmac('sha256', key).update(post.body).digest('hex')}`;
    expect(post.headers['x-mcpx-signature-256']).toBe(signature);
    expect(post.headers['content-type']).toBe('application/json');
    expect(post.json).toMatchObject({ event: 'opened', id, server: 'legacy', tool: 'ask_form', mode: 'form' });
    expect(post.json.message).toContain('Where should');
    expect(post.json.fields.map((f: { name: string }) => f.name)).toEqual(['repo', 'private', 'priority']);
    expect(post.json.answerWith).toContain(`mcpx elicit answer ${id}`);
    expect(Date.parse(post.json.deadline)).toBe(post.json.expiresAt);

    const piped = await waitFor('the command', () => commandPayloads().find((x) => x.id === id && x.event === 'opened'));
    expect(piped).toMatchObject({ id, server: 'legacy', tool: 'ask_form' });

    const audit = await waitFor('the audit', async () => {
      const events = (await auditOf(p)).filter((e) => e.elicit === id && e.kind === 'notify.sent');
      return events.length === 2 ? events : undefined;
    });
    expect(audit.map((e) => e.data.sink).sort()).toEqual(['command[0]', 'webhook[0]']);
    expect(audit.find((e) => e.data.sink === 'webhook[0]')!.data).toMatchObject({ signed: true, status: 200, on: 'opened' });
    const opened = (await auditOf(p)).find((e) => e.elicit === id && e.kind === 'elicit.open')!;
    // The figure the issue asks for (a second at most), printed rather than asserted: timing belongs in bench/.
    console.log(`notify: the webhook got ${id} ${post.at - opened.at} ms after it opened`);
  });

  it('sends nothing for a call that asks nothing', async () => {
    const before = hook.posts.length;
    const quiet = await p.run(['call', 'legacy.no_ask', 'text=hi']);
    expect(quiet.code, quiet.stderr).toBe(0);
    const asks = await p.run(['call', 'legacy.ask_confirm']);
    expect(asks.code, asks.stderr).toBe(75);
    const id = idOf(asks.stdout);
    await waitFor('the POST', () => hook.posts.find((x) => x.json.id === id));
    expect(hook.posts.slice(before).map((x) => x.json.id)).toEqual([id]);
  });

  it('tells of an answer without its content: a secret answer is in no payload', async () => {
    const token = `tok_${randomBytes(12).toString('hex')}`;
    const call = await p.run(['call', 'tok.whoami']);
    expect(call.code, call.stderr).toBe(75);
    const id = idOf(call.stdout);
    await waitFor('the opened POST', () => hook.posts.find((x) => x.json.id === id && x.json.event === 'opened'));
    const answer = await p.run(['elicit', 'answer', id, '-'], JSON.stringify({ value: token }));
    expect(answer.code, answer.stderr).toBe(0);

    const answered = await waitFor('the answered POST', () =>
      hook.posts.find((x) => x.json.id === id && x.json.event === 'answered'),
    );
    expect(answered.json.answer).toEqual({ action: 'accept', by: expect.any(String) });
    await waitFor('the answered command', () => commandPayloads().find((x) => x.id === id && x.event === 'answered'));
    for (const post of hook.posts) {
      expect(post.body).not.toContain(token);
      expect(post.body).not.toContain(key);
    }
    for (const name of readdirSync(outDir)) expect(readFileSync(join(outDir, name), 'utf8')).not.toContain(token);
  });
});

describe('where the call is held', () => {
  it("mcpx run: a script's ask() left waiting is sent before the run exits", async () => {
    const hook = await receiver();
    servers.push(hook.server);
    const p = place({ mcpServers: {}, notify: [{ webhook: hook.url }] });
    writeFileSync(join(p.dir, 'ask.ts'), `export default await ask('Which repository?');\n`);
    const run = await p.run(['run', 'ask.ts']);
    expect(run.code, run.stderr).toBe(75);
    const id = idOf(run.stdout + run.stderr);
    // The run has exited: what it sent is there already.
    expect(hook.posts.map((x) => x.json)).toEqual([
      expect.objectContaining({ id, event: 'opened', message: 'Which repository?' }),
    ]);
    expect(hook.posts[0]!.headers['x-mcpx-signature-256']).toBeUndefined();
  });

  it('mcpx serve sends for a question its client cannot take', async () => {
    const hook = await receiver();
    servers.push(hook.server);
    const setup = serveSetup({ legacy: stdioFixture('legacy-v1') }, { MCPX_SESSION_ID: 'notify-serve-test' });
    writeFileSync(
      setup.configPath,
      JSON.stringify({ mcpServers: { legacy: stdioFixture('legacy-v1') }, notify: [{ webhook: hook.url, format: 'slack' }] }),
    );
    const client = await v1Client(setup);
    try {
      const first = await client.callTool('ask_form', { title: 'fb' });
      const id = idOf(textOf(first));
      const post = await waitFor('the POST', () => hook.posts[0]);
      expect(Object.keys(post.json)).toEqual(['text']);
      expect(post.json.text).toContain('legacy (ask_form) asks');
      expect(post.json.text).toContain(`mcpx elicit answer ${id}`);
    } finally {
      await client.close();
    }
  });
});

describe('a call held inline', () => {
  it('sends nothing: its question is abandoned as the command exits, and only its own terminal could answer it', async () => {
    const hook = await receiver();
    servers.push(hook.server);
    const p = place({ mcpServers: { legacy: stdioFixture('legacy-v1') }, notify: [{ webhook: hook.url }] });
    const call = await p.run(['call', 'legacy.ask_confirm'], '', { MCPX_DAEMON: 'inline' });
    expect(call.code, call.stderr).toBe(75);
    const id = idOf(call.stdout + call.stderr);
    // The command has exited, and a host lets its sends finish before it does: nothing was sent, nor tried.
    expect(hook.posts).toEqual([]);
    const audit = await auditOf(p);
    expect(audit.filter((e) => e.elicit === id).map((e) => e.kind)).toEqual(['elicit.open', 'elicit.abandoned']);
  });
});

describe('a receiver that is dead or never answers', () => {
  it('delays nothing: the question is answered, the call finishes, and each failure is in the audit log', async () => {
    const hanging = await receiver(true);
    servers.push(hanging.server);
    const p = place({
      mcpServers: { legacy: stdioFixture('legacy-v1') },
      notify: [
        { name: 'dead', webhook: `http://127.0.0.1:${await closedPort()}/hook`, retries: 1 },
        { name: 'hanging', webhook: hanging.url, timeoutMs: 300, retries: 1 },
      ],
    });
    places.push(p);
    const call = await p.run(['call', 'legacy.ask_confirm']);
    expect(call.code, call.stderr).toBe(75);
    const id = idOf(call.stdout);
    const task = /tsk-[0-9a-f]{16}/.exec(call.stdout)?.[0];
    expect(task).toBeDefined();
    const answer = await p.run(['elicit', 'answer', id, '{"confirm": true}']);
    expect(answer.code, answer.stderr).toBe(0);
    const result = await p.run(['task', 'result', task!, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('accept');

    const failures = await waitFor('both failures', async () => {
      const events = (await auditOf(p)).filter((e) => e.elicit === id && e.kind === 'notify.failed');
      return events.length === 2 ? events : undefined;
    });
    const bySink = Object.fromEntries(failures.map((e) => [e.data.sink, e.data]));
    expect(bySink.dead).toMatchObject({ type: 'webhook', on: 'opened', attempts: 2 });
    expect(bySink.dead.reason).toContain('ECONNREFUSED');
    expect(bySink.hanging).toMatchObject({ type: 'webhook', on: 'opened', attempts: 2, reason: 'no answer within 300 ms' });
    expect(hanging.posts.filter((x) => x.json.id === id)).toHaveLength(2);
  });
});

describe('the web inbox link', () => {
  it("is the daemon's loopback inbox once it has a port (for run and notify test too), and MCPX_INBOX_URL's where set", async () => {
    const hook = await receiver();
    servers.push(hook.server);
    const p = place({ mcpServers: { legacy: stdioFixture('legacy-v1') }, notify: [{ webhook: hook.url }] });
    places.push(p);
    const started = await p.run(['daemon', 'start', '--port', '0']);
    expect(started.code, started.stderr).toBe(0);
    const status = JSON.parse((await p.run(['daemon', 'status', '--json'])).stdout) as { port: number };
    const call = await p.run(['call', 'legacy.ask_confirm']);
    expect(call.code, call.stderr).toBe(75);
    const id = idOf(call.stdout);
    const post = await waitFor('the POST', () => hook.posts.find((x) => x.json.id === id));
    expect(post.json.link).toBe(`http://127.0.0.1:${status.port}/ui/`);
    // A script's ask() waits in the same store, so the same inbox answers it.
    writeFileSync(join(p.dir, 'ask.ts'), `export default await ask('Which repository?');\n`);
    const run = await p.run(['run', 'ask.ts']);
    expect(run.code, run.stderr).toBe(75);
    const asked = idOf(run.stdout + run.stderr);
    expect(hook.posts.find((x) => x.json.id === asked)?.json.link).toBe(`http://127.0.0.1:${status.port}/ui/`);
    // And the sample `mcpx notify test` sends shows the person the link they will get.
    expect((await p.run(['notify', 'test'])).code).toBe(0);
    expect(hook.posts.find((x) => x.json.event === 'test')?.json.link).toBe(`http://127.0.0.1:${status.port}/ui/`);

    // Behind a tunnel or a reverse proxy, the address the person reaches (the daemon reads it as it starts).
    expect((await p.run(['daemon', 'stop'])).code).toBe(0);
    const tunnel = { MCPX_INBOX_URL: 'https://inbox.example.com/mcpx' };
    const viaTunnel = await p.run(['call', 'legacy.ask_confirm'], '', tunnel);
    expect(viaTunnel.code, viaTunnel.stderr).toBe(75);
    const tunnelled = idOf(viaTunnel.stdout);
    const second = await waitFor('the POST', () => hook.posts.find((x) => x.json.id === tunnelled));
    expect(second.json.link).toBe('https://inbox.example.com/mcpx/ui/');
  });
});

describe('mcpx notify test', () => {
  it("sends a sample through every sink and prints each one's outcome", async () => {
    const hook = await receiver();
    servers.push(hook.server);
    const key = randomBytes(16).toString('hex');
    const outDir = mkdtempSync(join(tmpdir(), 'mcpx-notify-test-'));
    const p = place({
      mcpServers: {},
      notify: [
        { webhook: hook.url, secret: { ask: 'the signing key', secret: true } },
        { name: 'chat', webhook: hook.url, format: 'slack' },
        { name: 'gone', webhook: `http://127.0.0.1:${await closedPort()}/hook` },
        {
          command: [
            process.execPath,
            '-e',
            `require('fs').writeFileSync(${JSON.stringify(join(outDir, 'got.json'))}, require('fs').readFileSync(0))`,
          ],
        },
        { desktop: true },
      ],
    });
    await (await openSecretStore({ stateDir: p.stateDir, prefer: 'file' })).set('notify', 'webhook[0].secret', key);
    const run = await p.run(['notify', 'test']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^webhook\[0\]\s+sent \(HTTP 200, signed\)$/);
    expect(lines[1]).toMatch(/^chat\s+sent \(HTTP 200\)$/);
    expect(lines[2]).toMatch(/^gone\s+failed: .*ECONNREFUSED/);
    expect(lines[3]).toMatch(/^command\[0\]\s+sent$/);
    expect(lines[4]).toMatch(/^desktop\[0\]\s+(sent|skipped: no notify-send on PATH)$/);

    const signed = hook.posts.find((x) => x.headers['x-mcpx-signature-256'])!;
    expect(signed.json).toMatchObject({ event: 'test', server: 'mcpx', tool: 'notify-test' });
    expect(signed.headers['x-mcpx-signature-256']).toBe(`sha256=${createHmac('sha256', key).update(signed.body).digest('hex')}`);
    const slack = hook.posts.find((x) => !x.headers['x-mcpx-signature-256'])!;
    expect(Object.keys(slack.json)).toEqual(['text']);
    expect(slack.json.text).toContain('mcpx (notify-test) asks (a test)');
    expect(JSON.parse(readFileSync(join(outDir, 'got.json'), 'utf8'))).toMatchObject({ event: 'test' });
  });
});
