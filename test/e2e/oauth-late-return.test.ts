/**
 * A sign-in answered later than a server may stay silent: the person takes over a minute, longer than the SDK's
 * default 60 s for the connect's first request, inside which the sign-in waits. On the built CLI: a headless
 * `mcpx call` exits 75 with the sign-in URL, the browser comes back (from this process) 61 s later, and the call
 * completes. Before, the connect gave up at 60 s ("Version negotiation probe timed out") and the question was
 * abandoned while its TTL still ran.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthCli } from '../helpers/oauth-cli.js';

const oauth = oauthCli('mcpx-oauth-late-');
const run = oauth.run;

beforeAll(async () => {
  await oauth.start(['--oauth']);
});

afterAll(() => oauth.stop());

describe('a sign-in answered after a minute', () => {
  it('still completes the call: no request timer runs while the person signs in', async () => {
    const call = await run(['call', 'notes.whoami', '--json']);
    expect(call.code, call.stderr).toBe(75);
    const { inputRequired } = JSON.parse(call.stdout) as {
      inputRequired: { task: string; questions: Array<{ id: string; url: string }> };
    };
    const [question] = inputRequired.questions;

    // Longer than the SDK's 60 s default for a request, well inside the question's 120 s TTL.
    await sleep(61_000);
    const listed = JSON.parse((await run(['elicit', 'list', '--json'])).stdout) as { elicitations: Array<{ id: string }> };
    expect(listed.elicitations.map((q) => q.id)).toContain(question!.id);
    const approved = await fetch(question!.url, { redirect: 'manual' });
    expect((await fetch(new URL(approved.headers.get('location')!))).status).toBe(200);
    const result = await run(['task', 'result', inputRequired.task, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).structuredContent.sha256).toMatch(/^[0-9a-f]{64}$/);
  }, 120_000);
});
