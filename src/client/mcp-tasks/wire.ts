/**
 * MCP Tasks on the wire, both revisions, as far as a client calling a tool needs them. The v2 SDK keeps the task
 * vocabulary but gives it no runtime, so these are our own result schemas, parsed loosely (unknown fields pass).
 * 2025-11-25 (SEP-1686): `tools/call` with `params.task`, `{task}` back, `tasks/get`, `tasks/result`, `tasks/cancel`.
 * 2026-07-28 (SEP-2663, extension `io.modelcontextprotocol/tasks`): `resultType: "task"`, `tasks/get` (result inlined),
 * `tasks/update` (input responses), `tasks/cancel`.
 */
import * as z from 'zod';

/** The extension's identifier, declared under `clientCapabilities.extensions` by a modern task call. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
const status = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/** A task as either revision sends it: its poll interval is `pollInterval` (2025-11-25) or `pollIntervalMs`. */
const task = z.looseObject({
  taskId: z.string().min(1),
  status,
  statusMessage: z.string().optional(),
  pollInterval: z.number().optional(),
  pollIntervalMs: z.number().optional(),
});

export type WireTask = z.infer<typeof task> & {
  inputRequests?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code?: number; message?: string; data?: unknown };
};

/** Where a modern `resultType: "task"` result travels past the SDK, which refuses that result type (connection.ts). */
const CREATED_TASK = 'io.mcpx/createdTask';

export function wrapCreatedTask(result: Record<string, unknown>): Record<string, unknown> {
  return { resultType: 'complete', content: [], [CREATED_TASK]: result };
}

/** What a task-augmented `tools/call` returns: a task (either shape), or a plain result when the server ran it at once. */
export const createdOrResult = z.union([
  z.looseObject({ task }).transform((value) => ({ kind: 'task' as const, task: value.task as WireTask })),
  z
    .looseObject({ [CREATED_TASK]: task })
    .transform((value) => ({ kind: 'task' as const, task: value[CREATED_TASK] as WireTask })),
  z.looseObject({}).transform((value) => ({ kind: 'result' as const, result: value })),
]);

/** `tasks/get`: the task; on 2026-07-28 with `inputRequests`, `result` or `error` inlined as its status says. */
export const detailedTask = task.extend({
  inputRequests: z.record(z.string(), z.unknown()).optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.looseObject({ code: z.number().optional(), message: z.string().optional(), data: z.unknown().optional() }).optional(),
});

/** `tasks/result` (2025-11-25): the original request's result. `tasks/update`, `tasks/cancel`: an acknowledgement. */
export const anyResult = z.looseObject({});

/** The interval the server suggests, bounded: never busier than 100 ms, never slower than 30 s. */
export function pollDelay(wire: { pollInterval?: number | undefined; pollIntervalMs?: number | undefined }): number {
  const suggested = wire.pollIntervalMs ?? wire.pollInterval ?? 1000;
  return Math.min(30_000, Math.max(100, suggested));
}

/**
 * A modern server's `-32021` naming the tasks extension: the tool runs only as a task (2026-07-28 tools carry no
 * `execution.taskSupport`; the server decides), so the call is made again as one.
 */
export function needsTasksExtension(error: unknown): boolean {
  const data = (error as { data?: { code?: unknown; requiredCapabilities?: { extensions?: Record<string, unknown> } } })?.data;
  return data?.code === -32021 && data.requiredCapabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}
