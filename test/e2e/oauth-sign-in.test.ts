/**
 * Sign-in is a question, on the built CLI, each step its own process: a headless `mcpx call` to a Streamable HTTP
 * server behind OAuth (a real authorization server: discovery, dynamic registration, PKCE, the `iss` check) exits 75
 * with the sign-in URL; this test process then follows the URL as a browser would (the authorization server
 * redirects to the daemon's loopback callback), which answers the question, and the call completes. The next calls,
 * through the daemon and without one (MCPX_DAEMON=inline), use the stored token and ask nothing. The calls and runs
 * are processes; `elicit`, `task` and `log` run `mcpx` as a function beside them (main with captured IO).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/helpers/run-cli.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'test', 'fixtures', 'servers', 'protected-http.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface Stats {
  token: { authorization_code: number; refresh_token: number };
  register: number;
}

let server: ChildProcess;
let mcpUrl: string;
const home = mkdtempSync(join(tmpdir(), 'mcpx-oauth-sign-in-'));
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  MCPX_CONFIG_DIR: join(home, 'config'),
  MCPX_STATE_DIR: join(home, 'state'),
  MCPX_SECRET_STORE: 'file',
};

function run(args: string[], extra: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [cli, ...args],
      { cwd: join(home, 'work'), env: { ...env, ...extra }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

/** `mcpx <args>` as a function here; a daemon it starts is the built one. */
function runInProcess(args: string[], extra: Record<string, string> = {}): Promise<Run> {
  const daemon = JSON.stringify([process.execPath, cli, 'daemon', 'run']);
  return runCli(args, { cwd: join(home, 'work'), env: { ...env, MCPX_DAEMON_COMMAND: daemon, ...extra } });
}

async function stats(): Promise<Stats> {
  return (await fetch(new URL('/stats', mcpUrl))).json() as Promise<Stats>;
}

/** The sign-in question of a `--json` exit 75. */
function signInOf(output: Run): { id: string; task: string; url: string } {
  const { inputRequired } = JSON.parse(output.stdout) as {
    inputRequired: { task: string; questions: Array<{ id: string; mode: string; url: string }> };
  };
  const [question] = inputRequired.questions;
  expect(question?.mode).toBe('url');
  return { id: question!.id, task: inputRequired.task, url: question!.url };
}

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run test:e2e builds, or npx tsup)`);
  server = spawn(process.execPath, [fixture, '--oauth'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await createInterface({ input: server.stdout! })
    [Symbol.asyncIterator]()
    .next()
    .then((r) => [r.value as string]);
  mcpUrl = line!;
  mkdirSync(env.MCPX_CONFIG_DIR);
  mkdirSync(join(home, 'work'));
  writeFileSync(
    join(env.MCPX_CONFIG_DIR, 'mcpx.json'),
    JSON.stringify(
      { mcpServers: { notes: { url: mcpUrl }, refused: { url: mcpUrl }, scripted: { url: mcpUrl }, revoked: { url: mcpUrl } } },
      null,
      2,
    ),
  );
});

afterAll(async () => {
  await run(['daemon', 'stop']);
  server?.kill();
});

describe('sign-in as a question', () => {
  it('exits 75 with the URL; the browser coming back from another process answers it and the call completes', async () => {
    const call = await run(['call', 'notes.whoami', '--json']);
    expect(call.code, call.stderr).toBe(75);
    const { id, task, url } = signInOf(call);
    const authorize = new URL(url);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(new URL('/authorize', mcpUrl).href);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('resource')).toBe(mcpUrl);
    const text = await runInProcess(['elicit', 'list']);
    expect(text.stdout).toContain(id);

    // The browser: the authorization server approves and sends it back to the daemon's loopback listener.
    const approved = await fetch(url, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const callback = new URL(approved.headers.get('location')!);
    expect(callback.hostname).toBe('127.0.0.1');
    expect(callback.pathname).toBe('/oauth/callback');
    const landed = await fetch(callback);
    expect(landed.status).toBe(200);
    expect(await landed.text()).toContain('signed in');

    const result = await runInProcess(['task', 'result', task, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).structuredContent.sha256).toMatch(/^[0-9a-f]{64}$/);

    // Answered by the person (the browser's return), audited like any other question.
    const log = await runInProcess(['log', '--chain', id, '--json']);
    const events = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; action?: string; by?: string });
    expect(events.find((e) => e.kind === 'elicit.answered')).toMatchObject({ action: 'accept', by: 'person' });
    expect((await stats()).token.authorization_code).toBe(1);

    // The stored token: no question, through the daemon and without one.
    const again = await run(['call', 'notes.whoami', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect((await run(['daemon', 'stop'])).code).toBe(0);
    const inline = await run(['call', 'notes.whoami', '--json'], { MCPX_DAEMON: 'inline' });
    expect(inline.code, inline.stderr).toBe(0);
    const after = await stats();
    expect(after.token.authorization_code).toBe(1);
    expect(after.register).toBe(1);
    const questions = await runInProcess(['elicit', 'list', '--state', 'all', '--json']);
    const listed = JSON.parse(questions.stdout) as { elicitations: Array<{ server: string; state: string }> };
    expect(listed.elicitations.filter((q) => q.server === 'notes').map((q) => q.state)).toEqual(['answered']);

    // The token is only in the secret store's file (MCPX_SECRET_STORE=file), never in the log or the question store.
    const secrets = JSON.parse(readFileSync(join(env.MCPX_STATE_DIR, 'secrets.json'), 'utf8')) as unknown;
    const token = /"access_token\\?":\\?"([^"\\]+)/.exec(JSON.stringify(secrets))?.[1];
    expect(token).toBeDefined();
    // Every file under the state dir, in its subdirectories too (locks/ holds the refresh lock while a 401 is met).
    const holding = readdirSync(env.MCPX_STATE_DIR, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(env.MCPX_STATE_DIR, join(entry.parentPath, entry.name)))
      .filter((f) => readFileSync(join(env.MCPX_STATE_DIR, f)).includes(token!));
    expect(holding).toEqual(['secrets.json']);
  });

  it('fails the call with SIGN_IN_FAILED when the sign-in is declined', async () => {
    const call = await run(['call', 'refused.whoami', '--json']);
    expect(call.code, call.stderr).toBe(75);
    const { id, task } = signInOf(call);
    expect((await runInProcess(['elicit', 'decline', id])).code).toBe(0);
    const result = await runInProcess(['task', 'result', task]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('SIGN_IN_FAILED');
    expect(result.stderr).toContain('answered decline');
  });

  // Issue #33: a sign-in is mcpx's own question, so a script's accept is refused (audited), the page is not opened,
  // and the sign-in waits for the person (the old assertion here was that the script's accept completed the call).
  it("asks a script: its onElicit's accept is refused, the page is not opened, and the sign-in waits for the person", async () => {
    // The browser: a program given the URL, which follows the redirects back to the loopback listener.
    const browser = join(home, 'browser.mjs');
    const opened = join(home, 'opened.txt');
    writeFileSync(
      browser,
      `#!${process.execPath}\nimport { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(opened)}, process.argv[2] + '\\n');\nawait fetch(process.argv[2]);\n`,
      { mode: 0o755 },
    );
    writeFileSync(
      join(home, 'work', 'signed.ts'),
      "onElicit(async (q) => (q.mode === 'url' ? { action: 'accept' } : undefined));\nexport default await tools.scripted.whoami({});\n",
    );
    writeFileSync(join(home, 'work', 'unattended.ts'), 'export default await tools.refused.whoami({});\n');
    const before = (await stats()).token.authorization_code;

    const signed = await run(['run', 'signed.ts'], { BROWSER: browser });
    expect(signed.code, signed.stderr).toBe(75);
    expect(signed.stdout).toContain(new URL('/authorize', mcpUrl).href);
    expect((await stats()).token.authorization_code).toBe(before);
    expect(existsSync(opened)).toBe(false);
    const refused = (await runInProcess(['log', '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; server?: string; data?: { answerer?: string } })
      .filter((e) => e.kind === 'elicit.refused' && e.server === 'scripted');
    expect(refused.map((e) => e.data?.answerer)).toEqual(['script']);

    // Nobody here to answer: the run's own question (its listener ends with the run) is abandoned and the sign-in is
    // handed to the daemon, where it waits as a question (test/e2e/oauth-run.test.ts follows it to the end).
    const unattended = await run(['run', 'unattended.ts']);
    expect(unattended.code, unattended.stderr).toBe(75);
    expect(unattended.stdout).toContain(new URL('/authorize', mcpUrl).href);
    const listed = JSON.parse((await runInProcess(['elicit', 'list', '--all', '--state', 'all', '--json'])).stdout) as {
      elicitations: Array<{ server: string; state: string }>;
    };
    // The script's sign-in went the same way: the run's own abandoned, handed to the daemon for the person.
    expect(
      listed.elicitations
        .filter((q) => q.server === 'scripted')
        .map((q) => q.state)
        .sort(),
    ).toEqual(['abandoned', 'pending']);
    expect(listed.elicitations.filter((q) => q.server === 'refused').map((q) => q.state)).toContain('abandoned');
    expect(listed.elicitations.filter((q) => q.server === 'refused').map((q) => q.state)).toContain('pending');
  });

  // Runs last: the revocation ends every token the fixture issued.
  it('asks again when the token of an open connection is revoked, and the call is made on the new token', async () => {
    /** Signs in through the browser as above: follows the URL and lands on the daemon's loopback callback. */
    const browse = async (url: string): Promise<void> => {
      const approved = await fetch(url, { redirect: 'manual' });
      expect((await fetch(new URL(approved.headers.get('location')!))).status).toBe(200);
    };
    const first = await run(['call', 'revoked.whoami', '--json']);
    expect(first.code, first.stderr).toBe(75);
    const signIn = signInOf(first);
    await browse(signIn.url);
    expect((await runInProcess(['task', 'result', signIn.task, '--json'])).code).toBe(0);
    // The daemon's connection is open and its token good: no question.
    const open = await run(['call', 'revoked.whoami', '--json']);
    expect(open.code, open.stderr).toBe(0);
    const before = JSON.parse(open.stdout).structuredContent.sha256 as string;
    const codes = (await stats()).token.authorization_code;

    expect((await fetch(new URL('/revoke', mcpUrl), { method: 'POST' })).status).toBe(200);
    // The old code failed this call with SIGN_IN_REQUIRED (exit 1): the sign-in had no call to ask through.
    const revoked = await run(['call', 'revoked.whoami', '--json']);
    expect(revoked.code, revoked.stderr).toBe(75);
    const again = signInOf(revoked);
    expect(new URL(again.url).searchParams.get('resource')).toBe(mcpUrl);
    expect((await runInProcess(['elicit', 'list'])).stdout).toContain(again.id);
    await browse(again.url);
    const result = await runInProcess(['task', 'result', again.task, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const after = JSON.parse(result.stdout).structuredContent.sha256 as string;
    expect(after).toMatch(/^[0-9a-f]{64}$/);
    expect(after).not.toBe(before);
    expect((await stats()).token.authorization_code).toBe(codes + 1);
    // The next call uses the new token on the same connection, asking nothing.
    const next = await run(['call', 'revoked.whoami', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).structuredContent.sha256).toBe(after);
  });
});
