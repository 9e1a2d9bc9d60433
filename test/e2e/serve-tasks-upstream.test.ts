/**
 * An upstream that speaks the tasks extension (examples/servers/tasks.mjs, 2026-07-28) behind `mcpx serve --http`:
 * serve mirrors it to a client that declares tasks (input_required rounds until the upstream makes a task, then a task
 * here; a failure as a failed task), and gives a client that does not the upstream's -32021 for a task-only tool.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTasksHttpServer } from '../../examples/servers/tasks.mjs';
import { modernPost, serveSetup, startHttpServe, type HttpServeProcess } from '../helpers/serve.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS: Record<string, unknown> = { elicitation: { form: {} }, extensions: { [TASKS]: {} } };

let upstream: ReturnType<typeof createTasksHttpServer>;
let serve: HttpServeProcess;
beforeAll(async () => {
  upstream = createTasksHttpServer();
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  // The rounds before the upstream makes its task are what this file checks: a loaded machine must not turn a slow
  // first round into serve's own task (250 ms by default).
  serve = await startHttpServe(serveSetup({ tasks: { url } }, { MCPX_SERVE_TASK_GRACE_MS: '20000' }));
});
afterAll(async () => {
  await serve?.close();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

const post = (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = WITH_TASKS) =>
  modernPost(serve.url, method, params, {
    capabilities,
    headers: { 'x-mcpx-session': 'upstream-tasks', ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}) },
  });

async function settled(taskId: string): Promise<Record<string, any>> {
  for (;;) {
    const got = await post('tasks/get', { taskId });
    expect(got.body.error).toBeUndefined();
    if (['completed', 'failed', 'cancelled'].includes(got.body.result!.status)) return got.body.result!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('mcpx serve in front of a server that speaks MCP tasks', () => {
  it('asks by input_required rounds until the upstream makes the task, then hands out a task with its result', async () => {
    const round1 = await post('tools/call', { name: 'test_tool_with_task', arguments: {} });
    expect(round1.body.result).toMatchObject({ resultType: 'input_required' });
    expect(round1.body.result).not.toHaveProperty('taskId');
    const [key] = Object.keys(round1.body.result!.inputRequests);

    const round2 = await post('tools/call', {
      name: 'test_tool_with_task',
      arguments: {},
      inputResponses: { [key!]: { action: 'accept', content: { name: 'Alice' } } },
      requestState: round1.body.result!.requestState,
    });
    expect(round2.body.result).toMatchObject({ resultType: 'task', status: expect.any(String) });
    expect(round2.body.result).not.toHaveProperty('requestState');
    const done = await settled(round2.body.result!.taskId);
    expect(done).toMatchObject({ status: 'completed' });
    expect(done.result.content[0].text).toBe('Hello, Alice!');
  });

  it("an upstream task's protocol error is a failed task carrying the error and no result", async () => {
    const created = await post('tools/call', { name: 'protocol_error_job', arguments: {} });
    expect(created.body.result).toMatchObject({ resultType: 'task' });
    const done = await settled(created.body.result!.taskId);
    expect(done).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: expect.stringContaining('the job crashed') },
    });
    expect(done).not.toHaveProperty('result');
  });

  it('takes a task client answer with fields the question did not ask for, one question at a time', async () => {
    const created = await post('tools/call', { name: 'multi_input', arguments: {} });
    const taskId = created.body.result!.taskId as string;
    let asking: Record<string, any>;
    do asking = (await post('tasks/get', { taskId })).body.result!;
    while (Object.keys(asking.inputRequests ?? {}).length < 2);
    const [first, second] = Object.keys(asking.inputRequests);
    await post('tasks/update', {
      taskId,
      inputResponses: { [first!]: { action: 'accept', content: { name: 'one', extra: true } } },
    });
    const between = (await post('tasks/get', { taskId })).body.result!;
    expect(between.status).toBe('input_required');
    expect(Object.keys(between.inputRequests)).toEqual([second]);
    await post('tasks/update', {
      taskId,
      inputResponses: { [second!]: { action: 'accept', content: { name: 'two', extra: 1 } } },
    });
    expect(await settled(taskId)).toMatchObject({ status: 'completed' });
  });

  it('a client without the extension gets the upstream -32021 for a tool that runs only as a task', async () => {
    const refused = await post('tools/call', { name: 'failing_job', arguments: {} }, { elicitation: { form: {} } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  });
});
