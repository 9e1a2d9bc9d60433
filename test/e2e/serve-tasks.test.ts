/**
 * MCP tasks through `mcpx serve --http` (io.modelcontextprotocol/tasks, 2026-07-28): a client that declares the
 * extension gets a task id for a call that waits on a question, polls tasks/get, answers with tasks/update or a
 * person answers with `mcpx elicit answer` from another process, and reads the result; the fixture's echo says what
 * reached the server. Raw 2026-07-28 POSTs: the v2 SDK client (2.4) refuses a `resultType: "task"` result. On the
 * 2025-11-25 wire (SEP-1686) a v2 SDK client asks for a task with `params.task` and collects it with tasks/result.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { modernPost, serveSetup, startHttpServe, type HttpServeProcess, type ServeSetup } from '../helpers/serve.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS: Record<string, unknown> = { elicitation: { form: {} }, extensions: { [TASKS]: {} } };
const SESSION = { 'x-mcpx-session': 'tasks-test' };

let setup: ServeSetup;
let serve: HttpServeProcess;
beforeAll(async () => {
  setup = serveSetup({ fixture: stdioFixture('dual-era') });
  serve = await startHttpServe(setup);
});
afterAll(async () => {
  await serve?.close();
});

/** SEP-2243: a tasks/* request names its task in Mcp-Name too. */
const post = (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = WITH_TASKS) =>
  modernPost(serve.url, method, params, {
    capabilities,
    headers: { ...SESSION, ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}) },
  });

/** tasks/get until `done` says so (a poll, as a task client does; the test's timeout bounds it). */
async function pollUntil(
  taskId: string,
  done: (task: Record<string, any>) => boolean,
  capabilities: Record<string, unknown> = WITH_TASKS,
) {
  for (;;) {
    const got = await post('tasks/get', { taskId }, capabilities);
    expect(got.body.error).toBeUndefined();
    if (done(got.body.result!)) return got.body.result!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startTask(name: string, capabilities: Record<string, unknown> = WITH_TASKS): Promise<string> {
  const created = await post('tools/call', { name, arguments: {} }, capabilities);
  expect(created.body.error).toBeUndefined();
  expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number) });
  return created.body.result!.taskId as string;
}

describe('mcpx serve offers its durable calls as MCP tasks', () => {
  it('a call waiting on a question is a task: polled to input_required, answered with tasks/update, its result inlined', async () => {
    const taskId = await startTask('ask_confirm');
    const asking = await pollUntil(taskId, (t) => t.status === 'input_required');
    const [key] = Object.keys(asking.inputRequests);
    expect(asking.inputRequests[key!]).toMatchObject({ method: 'elicitation/create' });
    expect(asking.inputRequests[key!].params.message).toContain('fixture (via mcpx) asks:');
    // The mcpx task holding the call: what `mcpx task result` and the broker know it by.
    expect(asking._meta['io.mcpx/task']).toMatch(/^tsk-/);

    const ack = await post('tasks/update', {
      taskId,
      inputResponses: { [key!]: { action: 'accept', content: { confirm: true } } },
    });
    expect(ack.body.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    expect(ack.body.result).not.toHaveProperty('status');

    const done = await pollUntil(taskId, (t) => t.status === 'completed');
    expect(done.result.structuredContent.received.confirm).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('decline reaches the server as decline', async () => {
    const taskId = await startTask('ask_confirm');
    const asking = await pollUntil(taskId, (t) => t.status === 'input_required');
    const [key] = Object.keys(asking.inputRequests);
    await post('tasks/update', { taskId, inputResponses: { [key!]: { action: 'decline' } } });
    const done = await pollUntil(taskId, (t) => t.status === 'completed');
    expect(done.result.structuredContent.received.confirm).toEqual({ action: 'decline' });
  });

  it('a client that cannot be asked keeps the task working while a person answers with mcpx elicit answer', async () => {
    const noForms = { extensions: { [TASKS]: {} } };
    const taskId = await startTask('ask_confirm', noForms);
    const waiting = await pollUntil(taskId, (t) => /elc-[0-9a-f]{16}/.test(t.statusMessage ?? ''), noForms);
    expect(waiting.status).toBe('working');
    expect(waiting).not.toHaveProperty('inputRequests');
    const question = /elc-[0-9a-f]{16}/.exec(waiting.statusMessage)![0];

    const answered = await setup.cli(['elicit', 'answer', '--all', question, '{"confirm":true}', '--config', setup.configPath]);
    expect(answered.code, answered.stderr).toBe(0);
    const done = await pollUntil(taskId, (t) => t.status === 'completed', noForms);
    expect(done.result.structuredContent.received.confirm).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('tasks/cancel acks empty, the task reads cancelled, and the server hears cancel', async () => {
    const taskId = await startTask('ask_confirm');
    await pollUntil(taskId, (t) => t.status === 'input_required');
    const ack = await post('tasks/cancel', { taskId });
    expect(ack.body.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    expect(ack.body.result).not.toHaveProperty('taskId');
    expect((await pollUntil(taskId, () => true)).status).toBe('cancelled');
  });

  it('a call that ends at once is answered as it always was, and tasks/* without the extension is -32021', async () => {
    const plain = await post('tools/call', { name: 'no_ask', arguments: { text: 'hi' } });
    expect(plain.body.result).toMatchObject({ resultType: 'complete' });
    expect(plain.body.result).not.toHaveProperty('taskId');

    const refused = await post('tasks/get', { taskId: 'mcpx-0000000000000000' }, { elicitation: {} });
    expect(refused.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    const unknown = await post('tasks/get', { taskId: 'mcpx-0000000000000000' });
    expect(unknown.body.error?.code).toBe(-32602);
  });

  it('a client without the extension gets today’s input_required for the same call', async () => {
    const round = await post('tools/call', { name: 'ask_confirm', arguments: {} }, { elicitation: { form: {} } });
    expect(round.body.result).toMatchObject({ resultType: 'input_required' });
    expect(round.body.result).not.toHaveProperty('taskId');
  });
});

/** Any result, as sent: the v2 SDK types no task methods (2025-11-25 vocabulary without a runtime). */
const asSent = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } } as const;

describe('mcpx serve offers tasks to a 2025-11-25 client that asks for one (SEP-1686)', () => {
  it('a v2 SDK client gets a task for a call that asks, polls tasks/get, and tasks/result asks it the question', async () => {
    const asked: Array<Record<string, any>> = [];
    const client = new Client(
      { name: 'legacy-tasks', version: '1.0.0' },
      {
        capabilities: { elicitation: { form: {} }, tasks: { list: {}, cancel: {} } } as never,
        versionNegotiation: { mode: 'legacy' },
      },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params as Record<string, any>);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
    try {
      expect(client.getServerCapabilities()).toMatchObject({ tasks: { requests: { tools: { call: {} } } } });
      const request = <T>(method: string, params: Record<string, unknown>) =>
        client.request({ method, params } as never, asSent, { timeout: 60_000 }) as Promise<T>;
      const created = await request<{ task: { taskId: string; status: string } }>('tools/call', {
        name: 'ask_confirm',
        arguments: {},
        task: { ttl: 60_000 },
      });
      expect(created.task).toMatchObject({ status: 'working', taskId: expect.stringMatching(/^mcpx-/) });
      const { taskId } = created.task;
      expect(await request<{ taskId: string }>('tasks/get', { taskId })).toMatchObject({ taskId });
      const listed = await request<{ tasks: Array<{ taskId: string }> }>('tasks/list', {});
      expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);

      const result = await request<Record<string, any>>('tasks/result', { taskId });
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toContain('fixture (via mcpx) asks:');
      expect(result.structuredContent.received.confirm).toEqual({ action: 'accept', content: { confirm: true } });
      expect(result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId });
      expect(await request<{ status: string }>('tasks/get', { taskId })).toMatchObject({ status: 'completed' });
    } finally {
      await client.close();
    }
  });
});
