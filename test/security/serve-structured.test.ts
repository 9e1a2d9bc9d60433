/**
 * Through `mcpx serve` (the built CLI, over stdio and HTTP), a tool with an output schema whose call stops on a question, for a
 * client that declared no elicitation (most hosts): the result must still reach the agent with the question's id and
 * the ways to answer it. Both SDKs' `callTool` refuse a non-error result without structured content from such a tool
 * ("has an output schema but did not return structured content"), so the agent never saw the question. The waiting
 * result is therefore a tool error (isError: true, which neither SDK validates) that says the call has not failed;
 * once answered (the mcpx_elicit_answer tool, or `mcpx elicit answer` in another process) the structured result is
 * collected with mcpx_elicit_answer or mcpx_call_result.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpClient,
  serveSetup,
  startHttpServe,
  textOf,
  v1Client,
  v2Client,
  type ServeSetup,
  type TestClient,
} from '../helpers/serve.js';

const FIXTURE = resolve(import.meta.dirname, '..', 'fixtures', 'servers', 'structured-asks.mjs');

let setup: ServeSetup;
beforeAll(() => {
  // One session for the serves and the CLI that answers from another process (a CLI sees only its own session's).
  setup = serveSetup(
    {
      modern: { command: process.execPath, args: [FIXTURE], era: 'modern' },
      legacy: { command: process.execPath, args: [FIXTURE], era: 'legacy' },
    },
    { MCPX_SESSION_ID: 'serve-structured-test' },
  );
});

const idIn = (text: string): string => /elc-[0-9a-f]{16}/.exec(text)![0];
const taskIn = (text: string): string => /tsk-[0-9a-f]{16}/.exec(text)![0];

/** `mcpx serve --http` and a client of it, closed together. */
async function overHttp(sdk: 'v1' | 'v2', era: 'legacy' | 'modern'): Promise<TestClient> {
  const serve = await startHttpServe(setup);
  const client = await httpClient(serve.url, { sdk, era });
  return {
    ...client,
    close: async () => {
      await client.close();
      await serve.close();
    },
  };
}

// The CLI answers in the serve's session over stdio (MCPX_SESSION_ID); an HTTP client's session is its own (a legacy
// MCP session), so there the CLI answers as an operator (--all).
const clients: Array<{ name: string; open: () => Promise<TestClient>; cliFlags: string[] }> = [
  { name: 'v2 client (modern)', open: () => v2Client(setup, { era: 'modern' }), cliFlags: [] },
  { name: 'v2 client (legacy)', open: () => v2Client(setup, { era: 'legacy' }), cliFlags: [] },
  { name: 'v1 client (legacy)', open: () => v1Client(setup), cliFlags: [] },
  { name: 'v2 client (modern, over HTTP)', open: () => overHttp('v2', 'modern'), cliFlags: ['--all'] },
  { name: 'v1 client (legacy, over HTTP)', open: () => overHttp('v1', 'legacy'), cliFlags: ['--all'] },
];

describe.each(clients)(
  'a tool with an output schema waiting on a question, for the $name declaring no elicitation',
  ({ open, cliFlags }) => {
    let client: TestClient;
    beforeAll(async () => {
      client = await open();
      const tools = (await client.listTools()) as Array<{ name: string; outputSchema?: unknown }>;
      // The served tools keep their output schemas: that is what makes the clients validate the result.
      expect(tools.find((t) => t.name === 'modern__create_ticket')?.outputSchema).toBeDefined();
      expect(tools.find((t) => t.name === 'legacy__create_ticket')?.outputSchema).toBeDefined();
    });
    afterAll(() => client?.close());

    it('returns the question id and how to answer it; mcpx_elicit_answer then gives the structured result', async () => {
      const first = await client.callTool('modern__create_ticket', { title: 'disk full' });
      expect(first.isError).toBe(true);
      expect(first.structuredContent).toBeUndefined();
      const text = textOf(first);
      expect(text).toContain('mcpx: modern.create_ticket is waiting for input');
      expect(text).toMatch(/has NOT failed/);
      expect(text).toContain('Which queue for "disk full"?');
      const id = idIn(text);
      expect(text).toContain(`mcpx elicit answer ${id}`);
      expect(text).toContain('mcpx_elicit_answer');
      const meta = (first._meta as Record<string, { task: string; questions: Array<{ id: string }> }>)['io.mcpx/inputRequired']!;
      expect(meta.questions.map((q) => q.id)).toEqual([id]);
      expect(meta.task).toBe(taskIn(text));

      const done = await client.callTool('mcpx_elicit_answer', { id, action: 'accept', content: { queue: 'ops' } });
      expect(done.isError).toBeFalsy();
      expect(done.structuredContent).toEqual({ ticket: 'T-1 disk full', queue: 'ops' });
    });

    it('is answered from another process (mcpx elicit answer); mcpx_call_result gives the structured result', async () => {
      const first = await client.callTool('legacy__create_ticket', { title: 'printer' });
      expect(first.isError).toBe(true);
      const text = textOf(first);
      const id = idIn(text);
      const answered = await setup.cli(['elicit', 'answer', ...cliFlags, id, '{"queue":"dev"}']);
      expect(answered.code, answered.stderr).toBe(0);
      const result = await client.callTool('mcpx_call_result', { task: taskIn(text), waitSeconds: 20 });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ ticket: 'T-1 printer', queue: 'dev' });
    });

    it('leaves a tool without an output schema as it was: the waiting text is no error', async () => {
      const first = await client.callTool('modern__ask_confirm', {});
      expect(first.isError).toBeFalsy();
      expect(textOf(first)).not.toMatch(/has NOT failed/);
      expect((await setup.cli(['elicit', 'cancel', ...cliFlags, idIn(textOf(first))])).code).toBe(0);
    });
  },
);
