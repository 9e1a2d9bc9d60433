#!/usr/bin/env node
/**
 * Fixture: an MCP server with task tools (the io.modelcontextprotocol/tasks extension, SEP-2663), written from the
 * conformance suite's `tasks-*` scenarios, on the v2 SDK's public request handlers (the SDK has no task runtime).
 * Modern wire (2026-07-28) over Streamable HTTP. `npm run conformance` referees it directly and through `mcpx serve`.
 *
 *   node examples/servers/tasks.mjs [--port 0] [--host 127.0.0.1]   # prints its URL on one stdout line
 */
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  Server,
  createMcpHandler,
  inputRequired,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const MISSING_CAPABILITY = -32021;
const TTL_MS = 10 * 60_000;
const POLL_MS = 200;

const text = (value, extra = {}) => ({ content: [{ type: 'text', text: value }], ...extra });
const elicit = (message, properties) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties } },
});
const object = { type: 'object' };

const TOOLS = [
  { name: 'greet', description: 'Says hello (sync only).', inputSchema: { ...object, properties: { name: { type: 'string' } } } },
  {
    name: 'slow_compute',
    description: 'Sleeps `seconds`, then returns; cancellable.',
    inputSchema: { ...object, properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
    execution: { taskSupport: 'optional' },
  },
  {
    name: 'failing_job',
    description: 'Fails as a tool after ~1 s.',
    inputSchema: object,
    execution: { taskSupport: 'required' },
  },
  {
    name: 'protocol_error_job',
    description: 'Fails as a protocol error.',
    inputSchema: object,
    execution: { taskSupport: 'required' },
  },
  {
    name: 'confirm_delete',
    description: 'Asks whether to delete a file, then answers.',
    inputSchema: { ...object, properties: { filename: { type: 'string' } } },
    execution: { taskSupport: 'optional' },
  },
  {
    name: 'multi_input',
    description: 'Asks two questions at once.',
    inputSchema: object,
    execution: { taskSupport: 'required' },
  },
  {
    name: 'test_tool_with_task',
    description: 'Asks a name synchronously (input_required), then works on it as a task.',
    inputSchema: object,
    execution: { taskSupport: 'optional' },
  },
];

/** The tasks of one process, shared by every request (the modern wire makes a server per request). */
export function createTaskTable() {
  const tasks = new Map();
  const now = () => new Date().toISOString();
  const envelope = (task) => ({
    taskId: task.id,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: TTL_MS,
    pollIntervalMs: POLL_MS,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
  });
  const settle = (task, status, fields = {}) => {
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return;
    Object.assign(task, { status, lastUpdatedAt: now() }, fields);
    task.wake?.();
  };
  return {
    /** Starts `work(task)` and returns the CreateTaskResult once the task is stored. */
    create(work) {
      const createdAt = now();
      const task = {
        id: `task-${randomUUID()}`,
        status: 'working',
        createdAt,
        lastUpdatedAt: createdAt,
        pending: {},
        answers: {},
      };
      tasks.set(task.id, task);
      task.cancelled = new Promise((resolve) => (task.onCancel = resolve));
      // Stored before the work starts: a tasks/get right after the CreateTaskResult finds it.
      Promise.resolve()
        .then(() => work(task))
        .then(
          (result) => result !== undefined && settle(task, 'completed', { result }),
          (error) => settle(task, 'failed', { error: { code: error?.code ?? -32603, message: String(error?.message ?? error) } }),
        );
      return { resultType: 'task', ...envelope(task) };
    },
    get(id) {
      const task = tasks.get(id);
      if (!task) throw new ProtocolError(-32602, `Unknown taskId: ${id}`, { taskId: id });
      return task;
    },
    detailed(task) {
      const out = { resultType: 'complete', ...envelope(task) };
      if (task.status === 'completed') out.result = task.result;
      if (task.status === 'failed') out.error = task.error;
      if (task.status === 'input_required') out.inputRequests = { ...task.pending };
      return out;
    },
    /** Parks the task on these questions until every one is answered; resolves with the answers by key. */
    ask(task, inputRequests) {
      Object.assign(task.pending, inputRequests);
      settle(task, 'input_required');
      return new Promise((resolve) => {
        task.wake = () => {
          if (Object.keys(task.pending).length > 0) return;
          task.wake = undefined;
          resolve(task.answers);
        };
      });
    },
    update(task, responses) {
      for (const [key, response] of Object.entries(responses ?? {})) {
        if (!(key in task.pending)) continue;
        delete task.pending[key];
        task.answers[key] = response;
      }
      if (task.status === 'input_required' && Object.keys(task.pending).length === 0) {
        task.status = 'working';
        task.lastUpdatedAt = now();
        task.wake?.();
      }
    },
    cancel(task) {
      settle(task, 'cancelled');
      task.onCancel();
    },
    settle,
  };
}

const sleep = (ms, task) =>
  Promise.race([new Promise((resolve) => setTimeout(resolve, ms)), task.cancelled.then(() => 'cancelled')]);

function declaresTasks(ctx) {
  return ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY]?.extensions?.[TASKS_EXTENSION] !== undefined;
}

function gate(ctx) {
  if (!declaresTasks(ctx))
    throw new ProtocolError(MISSING_CAPABILITY, `This request needs the ${TASKS_EXTENSION} extension`, {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
}

const taskId = z.object({ taskId: z.string() }).passthrough();

export function createTasksServer(table) {
  const server = new Server(
    { name: 'mcpx-tasks-fixture', version: '1.0.0' },
    { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } },
  );
  /** The work of each task tool; undefined settles nothing (the task was cancelled or settled already). */
  const work = {
    slow_compute: async (args, task) => {
      if ((await sleep(Number(args.seconds ?? 0) * 1000, task)) === 'cancelled') return undefined;
      return text(`computed ${args.label ?? ''} after ${Number(args.seconds ?? 0)}s`);
    },
    failing_job: async (_args, task) =>
      (await sleep(1000, task)) === 'cancelled' ? undefined : text('the job failed', { isError: true }),
    protocol_error_job: async () => {
      throw new ProtocolError(-32603, 'the job crashed');
    },
    confirm_delete: async (args, task) => {
      const answers = await table.ask(task, {
        [`confirm-${randomUUID()}`]: elicit(`Delete ${args.filename}?`, { confirm: { type: 'boolean' } }),
      });
      const [answer] = Object.values(answers);
      return text(answer?.action === 'accept' && answer.content?.confirm ? `deleted ${args.filename}` : `kept ${args.filename}`);
    },
    multi_input: async (_args, task) => {
      const answers = await table.ask(task, {
        [`first-${randomUUID()}`]: elicit('First name?', { name: { type: 'string' } }),
        [`second-${randomUUID()}`]: elicit('Second name?', { name: { type: 'string' } }),
      });
      return text(
        `got ${Object.values(answers)
          .map((a) => a?.content?.name)
          .join(' and ')}`,
      );
    },
    test_tool_with_task: async (args, task) =>
      (await sleep(300, task)) === 'cancelled' ? undefined : text(`Hello, ${args.user_name}!`),
  };

  server.setRequestHandler('tools/list', async () => ({ tools: TOOLS }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    if (name === 'greet') return text(`Hello, ${args.name ?? 'world'}!`);
    const tool = TOOLS.find((t) => t.name === name);
    if (!tool || !work[name]) throw new ProtocolError(-32602, `Unknown tool: ${name}`);
    if (name === 'test_tool_with_task') {
      // MRTR first, synchronously; the task is created on the round that brings the answer.
      const answer = ctx.mcpReq.inputResponses?.user_name;
      if (answer?.action !== 'accept')
        return inputRequired({ inputRequests: { user_name: elicit('Your name?', { name: { type: 'string' } }) } });
      args.user_name = answer.content?.name;
    }
    if (!declaresTasks(ctx)) {
      if (tool.execution.taskSupport === 'required') gate(ctx);
      // Optional task support, no extension: its question asked the MRTR way (input_required, answered on a retry).
      if (name === 'confirm_delete') {
        const answer = ctx.mcpReq.inputResponses?.confirm;
        if (!answer)
          return inputRequired({
            inputRequests: { confirm: elicit(`Delete ${args.filename}?`, { confirm: { type: 'boolean' } }) },
          });
        return text(answer.action === 'accept' && answer.content?.confirm ? `deleted ${args.filename}` : `kept ${args.filename}`);
      }
      // Optional task support, no extension: run to the end within the request.
      const task = { cancelled: new Promise(() => undefined) };
      return (await work[name](args, task)) ?? text('cancelled');
    }
    return table.create((task) => work[name](args, task));
  });
  server.setRequestHandler('tasks/get', { params: taskId }, async (params, ctx) => {
    gate(ctx);
    return table.detailed(table.get(params.taskId));
  });
  server.setRequestHandler('tasks/update', { params: taskId }, async (params, ctx) => {
    gate(ctx);
    // The SDK lifts `inputResponses` off every request's params (SEP-2322's envelope) into the context.
    table.update(table.get(params.taskId), ctx.mcpReq.inputResponses ?? params.inputResponses);
    return { resultType: 'complete' };
  });
  server.setRequestHandler('tasks/cancel', { params: taskId }, async (params, ctx) => {
    gate(ctx);
    table.cancel(table.get(params.taskId));
    return { resultType: 'complete' };
  });
  return server;
}

export function createTasksHttpServer() {
  const table = createTaskTable();
  const handler = toNodeHandler(createMcpHandler(() => createTasksServer(table), { legacy: 'reject' }));
  return createServer((req, res) => {
    handler(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500).end(String(error?.message ?? error));
    });
  });
}

function argValue(argv, name, fallback) {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const host = argValue(process.argv, '--host', '127.0.0.1');
  const server = createTasksHttpServer();
  server.listen(Number(argValue(process.argv, '--port', '0')), host, () =>
    process.stdout.write(`http://${host}:${server.address().port}/mcp\n`),
  );
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
