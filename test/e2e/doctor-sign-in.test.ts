/**
 * Issue 38: `mcpx doctor` on a Streamable HTTP server behind OAuth asks for the sign-in rather than report it: exit
 * 75 with the sign-in URL as mcpx's own question (held by the daemon, so the browser comes back after doctor
 * exited); once the browser has come back, `mcpx doctor` finds the server working with the stored token. Built CLI
 * processes against the OAuth fixture (its own authorization server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthCli } from '../helpers/oauth-cli.js';

const oauth = oauthCli('mcpx-doctor-sign-in-');

beforeAll(() => oauth.start(['--oauth']));
afterAll(() => oauth.stop());

describe('mcpx doctor: a server that needs a sign-in', () => {
  it('asks for it (exit 75, the URL), and after the browser came back finds the server working', async () => {
    const asked = await oauth.run(['doctor', '--json']);
    expect(asked.code, asked.stdout + asked.stderr).toBe(75);
    const report = JSON.parse(asked.stdout) as {
      servers: Array<{ server: string; verdict: string }>;
      questions: Array<{ server: string; questions: Array<{ id: string; mode: string; url: string; asker?: string }> }>;
    };
    expect(report.servers).toEqual([expect.objectContaining({ server: 'notes', verdict: 'asks' })]);
    const question = report.questions[0]?.questions[0];
    expect(question).toMatchObject({ mode: 'url', asker: 'mcpx' });

    // The browser, from this process: approved, and sent back to the daemon's loopback listener.
    const approved = await fetch(question!.url, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const landed = await fetch(new URL(approved.headers.get('location')!));
    expect(landed.status).toBe(200);

    const again = await oauth.run(['doctor', '--json']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).servers).toEqual([expect.objectContaining({ server: 'notes', verdict: 'ok' })]);
  });
});
