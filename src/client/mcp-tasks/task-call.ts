/**
 * A tool called as an MCP task, in either era: the task-augmented `tools/call`, then `tasks/get` at the server's
 * suggested interval until the task ends, its result fetched (2025-11-25: `tasks/result`; 2026-07-28: inlined), and
 * `tasks/cancel` when the caller aborts. A modern task's `input_required` questions go to `ask` and their answers back
 * by `tasks/update`; a legacy task's arrive as `elicitation/create` during `tasks/result`, through the usual seam.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  isInputRequiredResult,
  type CallToolResult,
  type Client,
} from '@modelcontextprotocol/client';
import { McpxError } from '../../errors.js';
import type { Era } from '../../types.js';
import { MAX_ROUNDS } from '../modern-call.js';
import type { WireElicitResult } from '../seam.js';
import { anyResult, createdOrResult, detailedTask, pollDelay, TASKS_EXTENSION, type WireTask } from './wire.js';

// setTimeout's ceiling: `tasks/result` blocks until the task ends; the held call's watchdog bounds it instead.
const NO_SDK_TIMEOUT = 2_147_483_647;

/**
 * The abort reason of a holder that stops following a task it does not end (a daemon stopping: the next one follows
 * the task again), directly or as the `cause` of the call's error: no `tasks/cancel` is sent, the server keeps it.
 */
export const LEAVE_MCP_TASK = new Error('the holder stopped following the MCP task; the server keeps it');

export const leavesMcpTask = (reason: unknown): boolean =>
  reason === LEAVE_MCP_TASK || (reason instanceof Error && reason.cause === LEAVE_MCP_TASK);

/** The server's own handle on the call: what another process needs to come back to it. */
export interface McpTaskHandle {
  server: string;
  tool: string;
  era: Era;
  taskId: string;
}

export interface TaskCallOptions {
  client: Client;
  era: Era;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  progressToken: string;
  signal: AbortSignal;
  /** What the connection declares; a modern task call adds the tasks extension to it. */
  declared: Record<string, unknown>;
  /** Puts one question of a modern task (`elicitation/create` params) and resolves the answer for the wire. */
  ask(params: Record<string, unknown>): Promise<WireElicitResult>;
  /** The server made the call a task: its id, for the record (awaited before the task is followed). */
  onTask?(handle: McpTaskHandle): unknown;
  /** Each poll: the server is alive and working. */
  onPoll?(): void;
  /** How long one `tasks/get`, `tasks/update` or `tasks/cancel` may take. */
  requestTimeoutMs: number;
  /** Asked of a 2025-11-25 server as the task's retention (`params.task.ttl`); absent: the server's default. */
  taskTtlMs?: number;
}

/** Calls the tool as a task and returns its CallToolResult; a server that answers at once is answered at once. */
export async function runTaskCall(options: TaskCallOptions): Promise<CallToolResult> {
  const { era, tool, progressToken } = options;
  const params: Record<string, unknown> = { name: tool, arguments: options.arguments, _meta: { progressToken } };
  if (era === 'legacy') params.task = options.taskTtlMs !== undefined ? { ttl: options.taskTtlMs } : {};
  else (params._meta as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY] = withTasks(options.declared);
  let raw = await callOnce(options, params);
  // SEP-2663 composition: a modern server may ask by input_required rounds (SEP-2322) before it makes the task.
  for (let round = 1; options.era === 'modern' && isInputRequiredResult(raw); round++) {
    if (round > MAX_ROUNDS)
      throw new McpxError('CALL_FAILED', `${options.server}.${tool} asked for input ${MAX_ROUNDS} rounds in a row; giving up`, {
        data: { server: options.server, tool, rounds: round - 1 },
      });
    const inputResponses = await answerAll(options, (raw.inputRequests ?? {}) as Record<string, unknown>);
    // Echo the server's request state exactly; never add one it did not send.
    const state = typeof raw.requestState === 'string' ? { requestState: raw.requestState } : {};
    raw = await callOnce(options, { ...params, inputResponses, ...state });
  }
  const created = createdOrResult.parse(raw);
  if (created.kind === 'result') return created.result as CallToolResult;
  await options.onTask?.({ server: options.server, tool, era, taskId: created.task.taskId });
  return followTask(options, created.task);
}

/** Follows a task the server already holds (just created, or created by another process) to its result. */
export async function followTask(
  options: Omit<TaskCallOptions, 'arguments' | 'progressToken' | 'taskTtlMs'>,
  first: WireTask | { taskId: string },
): Promise<CallToolResult> {
  const { signal } = options;
  const { taskId } = first;
  // Cancelling is cooperative: the server is told, and the call ends here without waiting for it to agree.
  const onAbort = (): void => {
    if (!leavesMcpTask(signal.reason)) void send(options, 'tasks/cancel', { taskId }, false).catch(() => undefined);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const asked = new Set<string>();
    let current = 'status' in first ? first : await getTask(options, taskId);
    for (;;) {
      options.onPoll?.();
      if (current.status === 'completed' && current.result) return current.result as CallToolResult;
      if (current.status === 'failed' && options.era === 'modern') throw taskFailed(options, current);
      if (current.status === 'cancelled') throw taskCancelled(options, current);
      if (current.status === 'input_required' && options.era === 'modern') await answer(options, current, asked);
      else if (current.status !== 'working')
        // 2025-11-25: the result (or the failure) comes from `tasks/result`, which also carries the task's questions.
        return await resultWhilePolling(options, current);
      else await sleep(pollDelay(current), signal);
      current = await getTask(options, taskId);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * `tasks/result` blocks until the task ends, and a task may work on long after its question: meanwhile `tasks/get`
 * at the suggested interval tells the holder the server lives, so the call is not taken for silent.
 */
async function resultWhilePolling(
  options: Omit<TaskCallOptions, 'arguments' | 'progressToken' | 'taskTtlMs'>,
  last: WireTask,
): Promise<CallToolResult> {
  const { taskId } = last;
  const done = new AbortController();
  void (async () => {
    let interval = pollDelay(last);
    for (;;) {
      await sleep(interval, done.signal).catch(() => undefined);
      if (done.signal.aborted) return;
      const seen = await getTask(options, taskId).catch(() => undefined);
      if (done.signal.aborted || !seen) continue;
      // Only an answer counts: a server that stopped answering is left to the watchdog.
      options.onPoll?.();
      interval = pollDelay(seen);
    }
  })();
  try {
    return (await send(options, 'tasks/result', { taskId }, true)) as CallToolResult;
  } finally {
    done.abort();
  }
}

function callOnce(options: TaskCallOptions, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  return options.client.request({ method: 'tools/call', params } as never, anyResult, {
    signal: options.signal,
    timeout: options.requestTimeoutMs,
    // The rounds are ours (the loop in runTaskCall), as in modern-call.ts.
    ...(options.era === 'modern' ? { allowInputRequired: true } : {}),
  } as never) as Promise<Record<string, unknown>>;
}

/** Puts the questions of a modern `input_required` not asked before (keys are unique over a task's life), then updates. */
async function answer(
  options: Omit<TaskCallOptions, 'arguments' | 'progressToken' | 'taskTtlMs'>,
  task: WireTask,
  asked: Set<string>,
): Promise<void> {
  const fresh = Object.entries(task.inputRequests ?? {}).filter(([key]) => !asked.has(key));
  if (!fresh.length) return sleep(pollDelay(task), options.signal);
  for (const [key] of fresh) asked.add(key);
  const inputResponses = await answerAll(options, Object.fromEntries(fresh), task.taskId);
  await send(options, 'tasks/update', { taskId: task.taskId, inputResponses }, false);
}

/** Each input request asked through `ask`, answered by key; a request mcpx cannot answer (not elicitation) fails. */
async function answerAll(
  options: Pick<TaskCallOptions, 'server' | 'tool' | 'ask'>,
  inputRequests: Record<string, unknown>,
  taskId?: string,
): Promise<Record<string, WireElicitResult>> {
  const answers = await Promise.all(
    Object.entries(inputRequests).map(async ([key, request]) => {
      const entry = (request ?? {}) as { method?: unknown; params?: unknown };
      if (entry.method !== 'elicitation/create')
        throw new McpxError(
          'CALL_FAILED',
          `${options.server}.${options.tool} asked for "${String(entry.method)}" (${taskId ? 'task ' : ''}input request "${key}"), which mcpx does not declare or answer`,
          { data: { server: options.server, tool: options.tool, key, method: entry.method, ...(taskId ? { taskId } : {}) } },
        );
      return [key, await options.ask((entry.params ?? {}) as Record<string, unknown>)] as const;
    }),
  );
  return Object.fromEntries(answers);
}

async function getTask(
  options: Omit<TaskCallOptions, 'arguments' | 'progressToken' | 'taskTtlMs'>,
  taskId: string,
): Promise<WireTask> {
  return detailedTask.parse(await send(options, 'tasks/get', { taskId }, false)) as WireTask;
}

/** One task request, with the tasks extension declared on a modern connection. */
function send(
  options: Pick<TaskCallOptions, 'client' | 'era' | 'declared' | 'signal' | 'requestTimeoutMs'>,
  method: 'tasks/get' | 'tasks/result' | 'tasks/update' | 'tasks/cancel',
  params: Record<string, unknown>,
  untilDone: boolean,
): Promise<Record<string, unknown>> {
  const meta = options.era === 'modern' ? { _meta: { [CLIENT_CAPABILITIES_META_KEY]: withTasks(options.declared) } } : {};
  return options.client.request({ method, params: { ...params, ...meta } } as never, anyResult, {
    // A cancel goes out after the caller's abort, so it cannot carry that signal.
    ...(method === 'tasks/cancel' ? {} : { signal: options.signal }),
    timeout: untilDone ? NO_SDK_TIMEOUT : options.requestTimeoutMs,
  } as never) as Promise<Record<string, unknown>>;
}

function withTasks(declared: Record<string, unknown>): Record<string, unknown> {
  const extensions = (declared.extensions ?? {}) as Record<string, unknown>;
  return { ...declared, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function taskFailed(options: Pick<TaskCallOptions, 'server' | 'tool'>, task: WireTask): McpxError {
  const { server, tool } = options;
  const why = task.error?.message ?? task.statusMessage ?? 'no reason given';
  return new McpxError('CALL_FAILED', `${server}.${tool} failed as a task (${task.taskId}): ${why}`, {
    data: { server, tool, taskId: task.taskId, ...(task.error?.code !== undefined ? { code: task.error.code } : {}) },
  });
}

function taskCancelled(options: Pick<TaskCallOptions, 'server' | 'tool'>, task: WireTask): McpxError {
  const { server, tool } = options;
  return new McpxError(
    'CALL_FAILED',
    `${server}.${tool}: the server cancelled its task ${task.taskId}${task.statusMessage ? ` (${task.statusMessage})` : ''}`,
    { data: { server, tool, taskId: task.taskId, status: 'cancelled' } },
  );
}
