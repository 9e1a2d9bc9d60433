/**
 * Tools that run as MCP tasks, called through the SDK in both eras: a 2025-11-25 v1 task server
 * (test/fixtures/servers/tasks.mjs) and a 2026-07-28 tasks-extension server (tasks-modern.mjs). Completed, asked
 * inside the task, cancelled by the caller; optional on request (2025-11-25, where tools say so).
 */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import type { McpTaskHandle } from '../../src/client/index.js';
import type { Answer, Question } from '../../src/types.js';

const servers = resolve(import.meta.dirname, '..', 'fixtures', 'servers');
const config = {
  mcpServers: {
    tasks: { command: process.execPath, args: [join(servers, 'tasks.mjs')] },
    modern: { command: process.execPath, args: [join(servers, 'tasks-modern.mjs')] },
  },
};
let mcpx: Mcpx | undefined;

afterEach(async () => {
  await mcpx?.close();
  mcpx = undefined;
});

async function open(answer?: Answer, asked: Question[] = []): Promise<Mcpx> {
  mcpx = await createMcpx({
    config: config as never,
    env: { PATH: process.env.PATH ?? '' },
    eraCache: createMemoryEraCache(),
    checkCalls: true,
    ...(answer
      ? {
          onElicit: async (question: Question) => {
            asked.push(question);
            return answer;
          },
        }
      : {}),
  });
  return mcpx;
}

const textOf = (result: { content?: unknown }): string =>
  ((result.content as Array<{ text?: string }> | undefined) ?? []).map((c) => c.text ?? '').join('');

describe.each([
  ['tasks', 'legacy'],
  ['modern', 'modern'],
] as const)('a tool that runs only as a task (%s server, %s era)', (server, era) => {
  it('is called as a task and returns its result, the task id told to the caller', async () => {
    const client = await open();
    const handles: McpTaskHandle[] = [];
    const outcome = await client.callTool(server, 'count_task', { steps: 3 }, { onMcpTask: (h) => handles.push(h) });
    expect(outcome.status).toBe('complete');
    if (outcome.status === 'complete') expect(textOf(outcome.result)).toBe('counted 3');
    expect(handles).toEqual([{ server, tool: 'count_task', era, taskId: expect.stringMatching(/\w+/) }]);
  });

  it.each([
    [{ action: 'accept', content: { colour: 'teal' } }, 'sky: accept teal'],
    [{ action: 'decline' }, 'sky: decline'],
    [{ action: 'cancel' }, 'sky: cancel'],
  ] as const)(
    'puts the question it asks in input_required to the handler; %j reaches the server as given',
    async (answer, said) => {
      const asked: Question[] = [];
      const client = await open(answer, asked);
      const outcome = await client.callTool(server, 'ask_task', { topic: 'sky' });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ server, tool: 'ask_task', mode: 'form', message: 'Which colour for sky?' });
      expect(outcome.status).toBe('complete');
      if (outcome.status === 'complete') expect(textOf(outcome.result)).toBe(said);
    },
  );

  it('comes back input-required with nobody to answer, and completes once answered', async () => {
    mcpx = await createMcpx({
      config: config as never,
      env: { PATH: process.env.PATH ?? '' },
      eraCache: createMemoryEraCache(),
      checkCalls: true,
      answerLater: true,
    });
    const outcome = await mcpx.callTool(server, 'ask_task', { topic: 'sea' });
    expect(outcome.status).toBe('input-required');
    if (outcome.status !== 'input-required') return;
    expect(outcome.questions.map((q) => q.message)).toEqual(['Which colour for sea?']);
    outcome.live!.respond(outcome.questions[0]!.id, { action: 'accept', content: { colour: 'blue' } });
    const done = await outcome.live!.result;
    expect(done.status).toBe('complete');
    if (done.status === 'complete') expect(textOf(done.result)).toBe('sea: accept blue');
  });

  it('sends tasks/cancel when the caller aborts', async () => {
    const client = await open();
    const marker = join(mkdtempSync(join(tmpdir(), 'mcpx-task-cancel-')), 'cancelled');
    const abort = new AbortController();
    let taskId = '';
    const call = client.callTool(
      server,
      'hold_task',
      { marker },
      { signal: abort.signal, onMcpTask: (h) => (taskId = h.taskId) },
    );
    await expect.poll(() => taskId, { timeout: 10_000 }).not.toBe('');
    abort.abort();
    await expect(call).rejects.toThrow(/aborted by the caller/);
    await expect
      .poll(() => existsSync(marker) && readFileSync(marker, 'utf8'), { timeout: 10_000 })
      .toBe(`cancelled ${taskId}\n`);
  });
});

describe('a 2025-11-25 task that works on after its question', () => {
  it('is not taken for silent while tasks/result waits: the task is polled meanwhile', async () => {
    mcpx = await createMcpx({
      config: config as never,
      env: { PATH: process.env.PATH ?? '' },
      eraCache: createMemoryEraCache(),
      checkCalls: true,
      requestTimeoutMs: 1_000,
      onElicit: async () => ({ action: 'accept', content: { colour: 'red' } }),
    });
    const outcome = await mcpx.callTool('tasks', 'ask_task', { topic: 'dusk', after: 2_500 });
    expect(outcome.status).toBe('complete');
    if (outcome.status === 'complete') expect(textOf(outcome.result)).toBe('dusk: accept red');
  });
});

describe('a tool whose execution.taskSupport is "optional"', () => {
  it('is called as a task when the caller asks', async () => {
    const client = await open();
    const handles: McpTaskHandle[] = [];
    const outcome = await client.callTool(
      'tasks',
      'maybe_task',
      { word: 'hi' },
      { task: true, onMcpTask: (h) => handles.push(h) },
    );
    expect(outcome.status).toBe('complete');
    if (outcome.status === 'complete') expect(textOf(outcome.result)).toBe('task hi');
    expect(handles).toHaveLength(1);
  });

  it('is called plainly otherwise', async () => {
    const client = await open();
    const handles: McpTaskHandle[] = [];
    const outcome = await client.callTool('tasks', 'maybe_task', { word: 'hi' }, { onMcpTask: (h) => handles.push(h) });
    expect(outcome.status).toBe('complete');
    expect(handles).toHaveLength(0);
  });
});

describe('a tool that does not allow task mode', () => {
  it('is refused with nothing sent when a task is asked for', async () => {
    mcpx = await createMcpx({
      config: {
        mcpServers: {
          plain: { command: process.execPath, args: [resolve(import.meta.dirname, '..', 'fixtures', 'servers', 'progress.mjs')] },
        },
      } as never,
      env: { PATH: process.env.PATH ?? '' },
      eraCache: createMemoryEraCache(),
      checkCalls: true,
    });
    await expect(mcpx.callTool('plain', 'progress', { steps: 1 }, { task: true })).rejects.toMatchObject({
      code: 'TASKS_NOT_SUPPORTED',
    });
  });
});
