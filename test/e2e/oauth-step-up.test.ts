/**
 * Step-up (SEP-2350), on the built CLI, each step its own process: the fixture's authorization server grants the
 * scope a sign-in asks for, and its tool `admin` answers 403 insufficient_scope, scope="notes:admin", to a token
 * that lacks it. A headless `mcpx call` of `admin` on a token signed in for `notes:read` exits 75 with a new sign-in
 * question whose URL asks for the union of the scopes; the browser coming back (to the daemon) answers it and the
 * call completes on the new token; the next call asks nothing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'test', 'fixtures', 'servers', 'protected-http.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let server: ChildProcess;
let mcpUrl: string;
const home = mkdtempSync(join(tmpdir(), 'mcpx-oauth-step-up-'));
const work = join(home, 'work');
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  MCPX_CONFIG_DIR: join(home, 'config'),
  MCPX_STATE_DIR: join(home, 'state'),
  MCPX_SECRET_STORE: 'file',
};

function run(args: string[]): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(process.execPath, [cli, ...args], { cwd: work, env, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

async function stats(): Promise<{ token: { authorization_code: number }; forbidden: number }> {
  return (await fetch(new URL('/stats', mcpUrl))).json() as Promise<{ token: { authorization_code: number }; forbidden: number }>;
}

/** The sign-in question of a `--json` exit 75. */
function signInOf(output: Run): { id: string; task: string; url: URL } {
  expect(output.code, output.stderr).toBe(75);
  const { inputRequired } = JSON.parse(output.stdout) as {
    inputRequired: { task: string; questions: Array<{ id: string; mode: string; url: string }> };
  };
  const [question] = inputRequired.questions;
  expect(question?.mode).toBe('url');
  return { id: question!.id, task: inputRequired.task, url: new URL(question!.url) };
}

/** The browser: the authorization server approves and sends it back to the daemon's loopback listener. */
async function browse(url: URL): Promise<void> {
  const approved = await fetch(url, { redirect: 'manual' });
  expect(approved.status).toBe(302);
  expect((await fetch(new URL(approved.headers.get('location')!))).status).toBe(200);
}

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run test:e2e builds, or npx tsup)`);
  server = spawn(process.execPath, [fixture, '--oauth', '--step-up'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await createInterface({ input: server.stdout! })[Symbol.asyncIterator]().next();
  mcpUrl = first.value as string;
  mkdirSync(env.MCPX_CONFIG_DIR);
  mkdirSync(work);
  // `scripted` is the same server under another name: tokens of its own, for the scripts below.
  writeFileSync(
    join(env.MCPX_CONFIG_DIR, 'mcpx.json'),
    JSON.stringify({ mcpServers: { notes: { url: mcpUrl }, scripted: { url: mcpUrl } } }),
  );
  writeFileSync(join(work, 'whoami.ts'), 'export default await tools.scripted.whoami({});\n');
  writeFileSync(join(work, 'admin.ts'), 'export default await tools.scripted.admin({});\n');
});

afterAll(async () => {
  await run(['daemon', 'stop']);
  server?.kill();
});

describe('step-up on 403 insufficient_scope', () => {
  it('asks a sign-in for the union of the scopes, answered by the browser, and the call completes', async () => {
    // Signed in for what the 401 challenge names.
    const first = signInOf(await run(['call', 'notes.whoami', '--json']));
    expect(first.url.searchParams.get('scope')).toBe('notes:read');
    await browse(first.url);
    expect((await run(['task', 'result', first.task])).code).toBe(0);

    // The tool wants more: a sign-in question of this call, asking for both scopes.
    const stepUp = signInOf(await run(['call', 'notes.admin', '--json']));
    expect(stepUp.id).not.toBe(first.id);
    expect(stepUp.url.searchParams.get('scope')?.split(' ').sort()).toEqual(['notes:admin', 'notes:read']);
    expect((await run(['elicit', 'list'])).stdout).toContain(stepUp.id);
    await browse(stepUp.url);
    const done = await run(['task', 'result', stepUp.task, '--json']);
    expect(done.code, done.stderr).toBe(0);
    const granted = JSON.parse(done.stdout).structuredContent as { admin: boolean; scope: string };
    expect(granted.admin).toBe(true);
    expect(granted.scope.split(' ').sort()).toEqual(['notes:admin', 'notes:read']);

    // The new token has both: neither tool asks again, and no further sign-in reaches the authorization server.
    const forbidden = (await stats()).forbidden;
    expect(forbidden).toBeGreaterThan(0);
    expect((await run(['call', 'notes.admin', '--json'])).code).toBe(0);
    expect((await run(['call', 'notes.whoami', '--json'])).code).toBe(0);
    const after = await stats();
    expect(after.token.authorization_code).toBe(2);
    expect(after.forbidden).toBe(forbidden);
  });

  it('mcpx run with nobody to answer: the step-up is handed to the daemon, and the script run again completes', async () => {
    const signedIn = signInOf(await run(['run', 'whoami.ts', '--json']));
    expect(signedIn.url.searchParams.get('scope')).toBe('notes:read');
    await browse(signedIn.url);
    expect((await run(['run', 'whoami.ts'])).code).toBe(0);
    const before = (await stats()).token.authorization_code;

    // The call meets the 403: the run's own sign-in (its listener ends with the run) is handed to the daemon.
    const stepUp = signInOf(await run(['run', 'admin.ts', '--json']));
    expect(stepUp.url.searchParams.get('scope')?.split(' ').sort()).toEqual(['notes:admin', 'notes:read']);
    expect(new URL(stepUp.url.searchParams.get('redirect_uri')!).pathname).toBe('/oauth/callback');
    expect((await run(['elicit', 'list'])).stdout).toContain(stepUp.id);
    await browse(stepUp.url);
    const held = await run(['task', 'result', stepUp.task]);
    expect(held.code, held.stderr).toBe(0);

    const again = await run(['run', 'admin.ts']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).structuredContent.admin).toBe(true);
    expect((await stats()).token.authorization_code).toBe(before + 1);
    const all = JSON.parse((await run(['elicit', 'list', '--state', 'all', '--json'])).stdout) as {
      elicitations: Array<{ id: string; state: string }>;
    };
    expect(all.elicitations.find((q) => q.id === stepUp.id)?.state).toBe('answered');
    expect(all.elicitations.filter((q) => q.state === 'pending')).toEqual([]);
  });
});
