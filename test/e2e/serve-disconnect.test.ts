/**
 * A client that goes away mid-question: `mcpx serve` over stdio exits when its stdin closes, and a modern
 * upstream's call is not lost. Its question stays answerable from another process (`mcpx elicit answer`), and the
 * call resumes there with that answer: collected by `mcpx task result`, or by another `mcpx serve` of the same
 * session through mcpx_call_result. Real processes throughout, one SQLite state store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { ownedServe, serveSetup, textOf, type ServeSetup, type TestClient } from '../helpers/serve.js';

const SESSION = { MCPX_SESSION_ID: 'disconnect-test' };
let setup: ServeSetup;
beforeAll(() => {
  // Every process of the setup (the serves and the CLI that answers) is in the one session the questions belong to.
  setup = serveSetup({ modern: { ...stdioFixture('dual-era'), era: 'modern' } }, SESSION);
});

/** Calls ask_form through a fresh serve, closes its stdin while the question waits; the question's and call's ids. */
async function askThenDisconnect(title: string): Promise<{ id: string; task: string }> {
  const served = await ownedServe(setup, SESSION);
  const first = textOf(await served.client.callTool('ask_form', { title }));
  const id = /elc-[0-9a-f]{16}/.exec(first)?.[0];
  const task = /tsk-[0-9a-f]{16}/.exec(first)?.[0];
  expect(id, first).toBeDefined();
  expect(task, first).toBeDefined();
  expect(await served.endStdin()).toBe(0);
  return { id: id!, task: task! };
}

describe('mcpx serve when its client disconnects mid-question (modern upstream)', () => {
  let other: TestClient | undefined;
  afterAll(() => other?.close());

  it('leaves the question answerable from the CLI, and mcpx task result resumes the call with that answer', async () => {
    const { id, task } = await askThenDisconnect('after-disconnect');
    const listed = await setup.cli(['elicit', 'list', '--json']);
    expect(listed.stdout).toContain(id);
    const answered = await setup.cli(['elicit', 'answer', id, '{"repo":"acme/api"}']);
    expect(answered.code, answered.stderr).toBe(0);
    const result = await setup.cli(['task', 'result', task, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as { structuredContent?: { received?: Record<string, unknown> } };
    expect(printed.structuredContent?.received?.details).toMatchObject({ action: 'accept', content: { repo: 'acme/api' } });
  });

  it('lets another serve of the same session collect it with mcpx_call_result, decline reaching the upstream as decline', async () => {
    const { id, task } = await askThenDisconnect('collected-by-another');
    const declined = await setup.cli(['elicit', 'decline', id]);
    expect(declined.code, declined.stderr).toBe(0);
    other = (await ownedServe(setup, SESSION)).client;
    const collected = await other.callTool('mcpx_call_result', { task, waitSeconds: 20 });
    expect(collected.isError).toBeFalsy();
    expect((collected.structuredContent as { received?: Record<string, unknown> }).received?.details).toEqual({
      action: 'decline',
    });
  });
});
