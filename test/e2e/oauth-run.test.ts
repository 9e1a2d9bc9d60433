/**
 * A script's sign-in with nobody to answer, on the built CLI, each step its own process: `mcpx run` of a script that
 * calls a Streamable HTTP server behind OAuth (the fixture's own authorization server) exits 75 with the sign-in URL
 * and the commands, as `mcpx call` does; the question is listed by `mcpx elicit list`; this test process then follows
 * the URL as a browser would, back to the daemon's loopback callback (the run has ended, so its own listener is
 * gone); and the script run again calls the tool with the stored token, asking nothing. Before, the run failed with
 * SIGN_IN_REQUIRED and the question was abandoned.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthCli } from '../helpers/oauth-cli.js';

const oauth = oauthCli('mcpx-oauth-run-');
const run = oauth.run;
const stats = () => oauth.stats<{ token: { authorization_code: number }; calls: number }>();

beforeAll(async () => {
  await oauth.start(['--oauth']);
  writeFileSync(join(oauth.work, 'job.ts'), 'export default await tools.notes.whoami({});\n');
});

afterAll(() => oauth.stop());

describe('mcpx run: a sign-in nobody here can answer', () => {
  it('exits 75 with the URL; the browser comes back to the daemon; the script run again uses the stored token', async () => {
    const stopped = await run(['run', 'job.ts', '--json']);
    expect(stopped.code, stopped.stderr).toBe(75);
    const { inputRequired } = JSON.parse(stopped.stdout) as {
      inputRequired: { task: string; tool: string; text: string; questions: Array<{ id: string; mode: string; url: string }> };
    };
    const [question] = inputRequired.questions;
    expect(question?.mode).toBe('url');
    const authorize = new URL(question!.url);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(new URL('/authorize', oauth.mcpUrl).href);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(inputRequired.tool).toBe('whoami');
    // The message a person reads: the URL with its domain, and the commands that answer it.
    expect(inputRequired.text).toContain(`${question!.url} (127.0.0.1)`);
    expect(inputRequired.text).toContain(`mcpx elicit decline ${question!.id}`);
    expect(inputRequired.text).toContain('run the script again');
    expect(stopped.stderr).not.toContain('SIGN_IN_REQUIRED');

    // The question waits in the store, in this directory's session, for anyone.
    const listed = await run(['elicit', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(question!.id);

    // The browser, from this process: approved, and sent back to the daemon's loopback listener (the run has ended).
    const approved = await fetch(question!.url, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const callback = new URL(approved.headers.get('location')!);
    expect(callback.pathname).toBe('/oauth/callback');
    const landed = await fetch(callback);
    expect(landed.status).toBe(200);
    const held = await run(['task', 'result', inputRequired.task]);
    expect(held.code, held.stderr).toBe(0);
    expect(held.stdout).toContain('signed in to "notes"');

    // Run again: the token is in the secret store, so the listing and the call go through and nothing is asked.
    const again = await run(['run', 'job.ts']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).structuredContent.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await stats()).token.authorization_code).toBe(1);
    const all = JSON.parse((await run(['elicit', 'list', '--state', 'all', '--json'])).stdout) as {
      elicitations: Array<{ id: string; state: string }>;
    };
    // The daemon's question answered by the browser; the run's own (its listener gone with it) abandoned; no third.
    expect(all.elicitations.find((q) => q.id === question!.id)?.state).toBe('answered');
    expect(all.elicitations.map((q) => q.state).sort()).toEqual(['abandoned', 'answered']);
  });
});
