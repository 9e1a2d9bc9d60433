/**
 * §5.4a through `mcpx serve`: a question the server marked for the person is refused by mcpx_elicit_answer (the
 * agent does not answer it) and stays pending for the person, who answers it from another process.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { received, serveSetup, textOf, v1Client, type ServeSetup, type TestClient } from '../helpers/serve.js';

const fixture = resolve(import.meta.dirname, '..', 'fixtures', 'servers', 'for-person.mjs');

let setup: ServeSetup;
let client: TestClient;
beforeAll(async () => {
  // The serve and the person's CLI are in one session (a CLI sees and answers only its own session's).
  setup = serveSetup({ pay: { command: process.execPath, args: [fixture] } }, { MCPX_SESSION_ID: 'serve-audience-test' });
  client = await v1Client(setup);
});
afterAll(() => client?.close());

describe('mcpx serve and a question for the person', () => {
  it("refuses the agent's answer, keeps the question pending, and the person's answer reaches the server", async () => {
    const first = await client.callTool('approve');
    const text = textOf(first);
    expect(text).toContain('for the person');
    const id = /elc-[0-9a-f]{16}/.exec(text)![0];
    const task = /tsk-[0-9a-f]{16}/.exec(text)![0];
    const listed = (await client.callTool('mcpx_elicit_list')).structuredContent as {
      questions: Array<{ id: string; forPerson: boolean }>;
    };
    expect(listed.questions.find((q) => q.id === id)?.forPerson).toBe(true);
    const refused = await client.callTool('mcpx_elicit_answer', { id, action: 'accept', content: { approve: true } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/for the person/);
    expect((await setup.cli(['elicit', 'answer', id, '{"approve":false}'])).code).toBe(0);
    const result = await client.callTool('mcpx_call_result', { task, waitSeconds: 20 });
    expect(received(result, 'approve')).toEqual({ action: 'accept', content: { approve: false } });
  });
});
