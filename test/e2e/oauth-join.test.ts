/**
 * A second call while a sign-in is pending, on the built CLI, each step its own process (issue #12): a headless
 * `mcpx call` to a server behind OAuth exits 75 with the sign-in question; a second `mcpx call` to the same server
 * (in the same session, and in another) exits 75 with that same question instead of waiting in the daemon's
 * unfinished connect; the browser's one return, from this process, completes all of them. The same for two
 * `mcpx run`s handing their sign-in to the daemon. Before, the second call joined the connect and waited (about
 * 12 minutes) with no question of its own. The calls and runs are processes; reading the store and the tasks
 * (`elicit`, `task`) runs `mcpx` as a function, a client of the same daemon.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthCli, type CliRun } from '../helpers/oauth-cli.js';

const oauth = oauthCli('mcpx-oauth-join-');
const run = oauth.run;
const runInProcess = oauth.runInProcess;
const stats = () => oauth.stats<{ token: { authorization_code: number } }>();

interface Stop {
  id: string;
  task: string;
  url: string;
  text: string;
}

/** The one question of a `--json` exit 75: the sign-in, in url mode. */
function stopOf(output: CliRun): Stop {
  expect(output.code, output.stderr).toBe(75);
  const { inputRequired } = JSON.parse(output.stdout) as {
    inputRequired: { task: string; text: string; questions: Array<{ id: string; mode: string; url: string }> };
  };
  expect(inputRequired.questions).toHaveLength(1);
  const [question] = inputRequired.questions;
  expect(question?.mode).toBe('url');
  return { id: question!.id, task: inputRequired.task, url: question!.url, text: inputRequired.text };
}

/** The browser: the authorization server approves and sends it back to the daemon's loopback callback. */
async function browse(url: string): Promise<void> {
  const approved = await fetch(url, { redirect: 'manual' });
  expect(approved.status).toBe(302);
  const landed = await fetch(new URL(approved.headers.get('location')!));
  expect(landed.status).toBe(200);
}

/** Every question of `server` in the store, any session, any state. */
async function questionsOf(server: string): Promise<Array<{ id: string; state: string; session: string }>> {
  const listed = await runInProcess(['elicit', 'list', '--all', '--state', 'all', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  const { elicitations } = JSON.parse(listed.stdout) as {
    elicitations: Array<{ id: string; server: string; state: string; session: string }>;
  };
  return elicitations.filter((q) => q.server === server);
}

beforeAll(async () => {
  await oauth.start(['--oauth'], ['notes', 'scripted', 'refused', 'together']);
  writeFileSync(join(oauth.work, 'job.ts'), 'export default await tools.scripted.whoami({});\n');
});

afterAll(() => oauth.stop());

describe('a second call while a sign-in is pending', () => {
  it('gets the same sign-in question (exit 75), and one browser return completes every call', async () => {
    const first = stopOf(await run(['call', 'notes.whoami', '--json']));

    // The same session (this directory's), then another: both are told of the one pending sign-in.
    const second = stopOf(await run(['call', 'notes.whoami', '--json']));
    expect(second.id).toBe(first.id);
    expect(second.url).toBe(first.url);
    expect(second.task).not.toBe(first.task);
    expect(second.text).toContain(`mcpx elicit decline ${first.id}`);
    const elsewhere = stopOf(await run(['call', 'notes.whoami', '--json'], { MCPX_SESSION_ID: 'another-session' }));
    expect(elsewhere.id).toBe(first.id);
    expect(elsewhere.url).toBe(first.url);
    // The question stays the first caller's: another session answers it as an operator, and is told so.
    expect(elsewhere.text).toContain(`mcpx elicit decline --all ${first.id}`);

    // One sign-in question for the server, never a second page to open.
    expect((await questionsOf('notes')).map((q) => q.state)).toEqual(['pending']);

    await browse(first.url);
    // Each task read from the session that made it (a task is bound to its session, as its questions are).
    const sessions: Array<[string, Record<string, string>]> = [
      [first.task, {}],
      [second.task, {}],
      [elsewhere.task, { MCPX_SESSION_ID: 'another-session' }],
    ];
    for (const [task, session] of sessions) {
      const result = await runInProcess(['task', 'result', task, '--json'], session);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).structuredContent.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect((await stats()).token.authorization_code).toBe(1);
    expect((await questionsOf('notes')).map((q) => q.state)).toEqual(['answered']);
  }, 180_000);

  it('two calls started at once get one sign-in question between them', async () => {
    await run(['daemon', 'start']);
    const [one, two] = (
      await Promise.all([run(['call', 'together.whoami', '--json']), run(['call', 'together.whoami', '--json'])])
    ).map(stopOf);
    expect(two!.id).toBe(one!.id);
    expect((await questionsOf('together')).map((q) => q.state)).toEqual(['pending']);
    await browse(one!.url);
    for (const task of [one!.task, two!.task]) expect((await runInProcess(['task', 'result', task])).code).toBe(0);
  }, 180_000);

  it('a declined sign-in fails the call that joined it too', async () => {
    const first = stopOf(await run(['call', 'refused.whoami', '--json']));
    const second = stopOf(await run(['call', 'refused.whoami', '--json']));
    expect(second.id).toBe(first.id);
    expect((await runInProcess(['elicit', 'decline', first.id])).code).toBe(0);
    for (const task of [first.task, second.task]) {
      const result = await runInProcess(['task', 'result', task]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('SIGN_IN_FAILED');
      expect(result.stderr).toContain('answered decline');
    }
    expect((await questionsOf('refused')).map((q) => q.state)).toEqual(['answered']);
  }, 180_000);

  it('a second mcpx run gets the sign-in the daemon holds for the first; the script run again asks nothing', async () => {
    const before = (await stats()).token.authorization_code;
    const first = stopOf(await run(['run', 'job.ts', '--json']));
    const second = stopOf(await run(['run', 'job.ts', '--json']));
    expect(second.id).toBe(first.id);
    expect(second.url).toBe(first.url);

    await browse(first.url);
    for (const task of [first.task, second.task]) {
      const held = await runInProcess(['task', 'result', task]);
      expect(held.code, held.stderr).toBe(0);
      expect(held.stdout).toContain('signed in to "scripted"');
    }
    const again = await run(['run', 'job.ts']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).structuredContent.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await stats()).token.authorization_code).toBe(before + 1);
    // The daemon's one question answered by the browser; each run's own (its listener gone with it) abandoned.
    expect((await questionsOf('scripted')).map((q) => q.state).sort()).toEqual(['abandoned', 'abandoned', 'answered']);
  }, 180_000);
});
