/**
 * `mcpx serve` over stdio, the built CLI, with real clients: the v1 SDK client (legacy era) and the v2 client
 * (legacy and modern), with and without elicitation, in front of a legacy upstream (v1 SDK) and a dual-era one
 * (v2, modern). Accept, decline and cancel reach the upstream as given; the forwarded message names the upstream;
 * a client that cannot be asked answers through the mcpx_elicit_* tools or another process's `mcpx elicit`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';
import {
  fitting,
  received,
  serveSetup,
  textOf,
  v1Client,
  v2Client,
  type Answer,
  type Asked,
  type ServeSetup,
  type TestClient,
} from '../helpers/serve.js';

const HOST_SAFE = /^[a-zA-Z0-9_-]{1,64}$/;

let setup: ServeSetup;
beforeAll(() => {
  // The serves and the CLI that answers from another process are in one session (a CLI sees only its own session's).
  setup = serveSetup(
    { legacy: stdioFixture('legacy-v1'), modern: { ...stdioFixture('dual-era'), era: 'modern' } },
    { MCPX_SESSION_ID: 'serve-stdio-test' },
  );
});

/** Answers every question with the action the test names (the content fits the question when accepting). */
const scripted =
  (action: () => Answer['action']) =>
  (asked: Asked): Answer => {
    const chosen = action();
    return chosen === 'accept' ? { action: 'accept', content: fitting(asked) } : { action: chosen };
  };

const clients: Array<{ name: string; open: (answer: (asked: Asked) => Answer) => Promise<TestClient> }> = [
  { name: 'v1 client (legacy)', open: (answer) => v1Client(setup, { answer }) },
  { name: 'v2 client (legacy)', open: (answer) => v2Client(setup, { era: 'legacy', answer }) },
  { name: 'v2 client (modern)', open: (answer) => v2Client(setup, { era: 'modern', answer }) },
];

describe.each(clients)('mcpx serve with the $name declaring elicitation', ({ open }) => {
  let client: TestClient;
  let next: Answer['action'] = 'accept';
  beforeAll(async () => {
    client = await open(scripted(() => next));
  });
  afterAll(() => client.close());

  it('lists every upstream tool under a host-safe server__tool name, with its schema and description', async () => {
    const tools = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'legacy__ask_form',
        'modern__ask_form',
        'legacy__no_ask',
        'mcpx_elicit_list',
        'mcpx_elicit_answer',
        'mcpx_call_result',
      ]),
    );
    for (const name of names) expect(name).toMatch(HOST_SAFE);
    const form = tools.find((t) => t.name === 'modern__ask_form')!;
    expect(form.description).toBe('Asks one form question (repo, private, priority).');
    expect(form.inputSchema).toMatchObject({ type: 'object', properties: { title: { type: 'string' } } });
  });

  it('calls a tool that asks nothing and returns its result', async () => {
    const result = await client.callTool('legacy__no_ask', { text: 'hi' });
    expect(result.structuredContent).toMatchObject({ tool: 'no_ask', text: 'hi' });
  });

  for (const upstream of ['legacy', 'modern'] as const) {
    for (const action of ['accept', 'decline', 'cancel'] as const) {
      it(`forwards the ${upstream} upstream's question naming it, and ${action} reaches it as given`, async () => {
        next = action;
        const before = client.asked.length;
        const result = await client.callTool(`${upstream}__ask_form`, { title: 'bug' });
        const asked = client.asked.slice(before);
        expect(asked).toHaveLength(1);
        expect(asked[0]!.message).toBe(`${upstream} (via mcpx) asks: Where should "bug" go?`);
        const got = received(result, 'details');
        expect(got?.action).toBe(action);
        if (action === 'accept') expect(got?.content).toMatchObject({ repo: 'me/thing' });
        else expect(got?.content).toBeUndefined();
      });
    }
  }

  it('forwards each round of a question asked over two rounds', async () => {
    next = 'accept';
    const result = await client.callTool('modern__ask_rounds', { title: 'x' });
    expect(received(result, 'details')?.action).toBe('accept');
    expect(received(result, 'confirm')).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('refuses an unknown tool with an error that says what is served', async () => {
    await expect(client.callTool('nope__tool')).rejects.toThrow(/Unknown tool: nope__tool.*legacy, modern/);
  });
});

describe('mcpx serve with a modern client answering by hand', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await v2Client(setup, { era: 'modern', answer: () => ({ action: 'cancel' }), autoFulfill: false });
  });
  afterAll(() => client.close());

  it('returns input_required with its own request state, and refuses a tampered one', async () => {
    const first = await client.request!('tools/call', { name: 'legacy__ask_form', arguments: { title: 't' } });
    expect(first.resultType).toBe('input_required');
    const [key, request] = Object.entries(
      first.inputRequests as Record<string, { method: string; params: { message: string } }>,
    )[0]!;
    expect(request.method).toBe('elicitation/create');
    expect(request.params.message).toBe('legacy (via mcpx) asks: Where should "t" go?');
    const state = first.requestState as string;
    await expect(
      client.request!('tools/call', {
        name: 'legacy__ask_form',
        arguments: { title: 't' },
        inputResponses: { [key]: { action: 'decline' } },
        requestState: `${state}-TAMPERED`,
      }),
    ).rejects.toMatchObject({ code: -32602 });
    // Bound to the call it was minted for: other arguments are refused too.
    await expect(
      client.request!('tools/call', {
        name: 'legacy__ask_form',
        arguments: { title: 'other' },
        inputResponses: { [key]: { action: 'decline' } },
        requestState: state,
      }),
    ).rejects.toMatchObject({ code: -32602 });
    // The question survived both: the real retry still answers it.
    const done = await client.request!('tools/call', {
      name: 'legacy__ask_form',
      arguments: { title: 't' },
      inputResponses: { [key]: { action: 'decline' } },
      requestState: state,
    });
    expect(received(done, 'details')).toEqual({ action: 'decline' });
  });

  it('asks again when the answer does not fit the schema, and the question stays pending', async () => {
    const first = await client.request!('tools/call', { name: 'modern__ask_form', arguments: {} });
    const [key] = Object.keys(first.inputRequests as object);
    const again = await client.request!('tools/call', {
      name: 'modern__ask_form',
      arguments: {},
      inputResponses: { [key!]: { action: 'accept', content: { repo: 'x' } } },
      requestState: first.requestState,
    });
    expect(again.resultType).toBe('input_required');
    expect(Object.keys(again.inputRequests as object)).toEqual([key]);
    const done = await client.request!('tools/call', {
      name: 'modern__ask_form',
      arguments: {},
      inputResponses: { [key!]: { action: 'accept', content: { repo: 'me/ok' } } },
      requestState: again.requestState,
    });
    expect(received(done, 'details')?.content).toMatchObject({ repo: 'me/ok' });
  });
});

describe.each([
  { name: 'v1 client (legacy)', open: () => v1Client(setup) },
  { name: 'v2 client (modern)', open: () => v2Client(setup, { era: 'modern' }) },
])('mcpx serve with the $name declaring no elicitation', ({ open }) => {
  let client: TestClient;
  beforeAll(async () => {
    client = await open();
  });
  afterAll(() => client.close());

  const idIn = (text: string): string => /elc-[0-9a-f]{16}/.exec(text)![0];
  const taskIn = (text: string): string => /tsk-[0-9a-f]{16}/.exec(text)![0];

  it('returns the question as input-required text; the agent answers it with mcpx_elicit_answer and gets the result', async () => {
    const first = await client.callTool('legacy__ask_form', { title: 'fb' });
    const text = textOf(first);
    expect(first.isError).toBeFalsy();
    expect(text).toContain('mcpx: legacy.ask_form is waiting for input');
    expect(text).toContain('mcpx_elicit_answer');
    const id = idIn(text);
    const listed = await client.callTool('mcpx_elicit_list');
    const questions = (
      listed.structuredContent as { questions: Array<{ id: string; requestedSchema: unknown; expiresAt: string }> }
    ).questions;
    expect(questions.map((q) => q.id)).toContain(id);
    expect(questions.find((q) => q.id === id)!.requestedSchema).toMatchObject({ required: ['repo'] });

    const invalid = await client.callTool('mcpx_elicit_answer', { id, action: 'accept', content: { repo: 'x' } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/still waiting/);

    const done = await client.callTool('mcpx_elicit_answer', { id, action: 'accept', content: { repo: 'me/agent' } });
    expect(received(done, 'details')).toMatchObject({ action: 'accept', content: { repo: 'me/agent' } });
  });

  it("re-raises an agent's decline to the person, who answers from another process; the result is collected", async () => {
    const first = await client.callTool('modern__ask_form', { title: 'p' });
    const id = idIn(textOf(first));
    const task = taskIn(textOf(first));
    const declined = await client.callTool('mcpx_elicit_answer', { id, action: 'decline' });
    expect(textOf(declined)).toMatch(/goes to the person/);
    const listed = await setup.cli(['elicit', 'list', '--json']);
    expect(listed.stdout).toContain(id);
    const answered = await setup.cli(['elicit', 'cancel', id]);
    expect(answered.code).toBe(0);
    const result = await client.callTool('mcpx_call_result', { task, waitSeconds: 20 });
    expect(received(result, 'details')).toEqual({ action: 'cancel' });
  });

  it('keeps decline distinct from cancel when the person declines', async () => {
    const first = await client.callTool('legacy__ask_confirm', {});
    const id = idIn(textOf(first));
    expect((await setup.cli(['elicit', 'decline', id])).code).toBe(0);
    const result = await client.callTool('mcpx_call_result', { task: taskIn(textOf(first)), waitSeconds: 20 });
    expect(received(result, 'confirm')).toEqual({ action: 'decline' });
  });
});

describe('mcpx serve with one server', () => {
  it('serves its tools under their own names', async () => {
    const client = await v1Client(setup, { servers: ['modern'] });
    try {
      const names = (await client.listTools()).map((t) => t.name);
      expect(names).toContain('ask_form');
      expect(names).not.toContain('modern__ask_form');
      expect(names.some((n) => n.startsWith('legacy'))).toBe(false);
    } finally {
      await client.close();
    }
  });
});
