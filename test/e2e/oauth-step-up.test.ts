/**
 * Step-up (SEP-2350), on the built CLI, each step its own process: the fixture's authorization server grants the
 * scope a sign-in asks for, and its tool `admin` answers 403 insufficient_scope, scope="notes:admin", to a token
 * that lacks it. A headless `mcpx call` of `admin` on a token signed in for `notes:read` exits 75 with a new sign-in
 * question whose URL asks for the union of the scopes; the browser coming back (to the daemon) answers it and the
 * call completes on the new token; the next call asks nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthCli, type CliRun } from '../helpers/oauth-cli.js';

const oauth = oauthCli('mcpx-oauth-step-up-');
const run = oauth.run;
const stats = () => oauth.stats<{ token: { authorization_code: number }; forbidden: number }>();

/** The sign-in question of a `--json` exit 75. */
function signInOf(output: CliRun): { id: string; task: string; url: URL } {
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
  await oauth.start(['--oauth', '--step-up'], ['notes', 'scripted']);
  writeFileSync(join(oauth.work, 'whoami.ts'), 'export default await tools.scripted.whoami({});\n');
  writeFileSync(join(oauth.work, 'admin.ts'), 'export default await tools.scripted.admin({});\n');
});

afterAll(() => oauth.stop());

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
