/**
 * The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) as `mcpx serve` speaks it downstream: who declared
 * it (per request, on the 2026-07-28 wire), the -32021 for a request that did not, and the routing header check.
 */
import type { ServerResponse } from 'node:http';
import { ProtocolError, type ClientCapabilities, type ProtocolErrorCode } from '@modelcontextprotocol/server';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** How long serve keeps a task of its own readable after it was created. */
export const TASK_TTL_MS = 60 * 60_000;
export const POLL_INTERVAL_MS = 500;
const MISSING_CAPABILITY = -32021 as ProtocolErrorCode;
const UNKNOWN_TASK = -32602 as ProtocolErrorCode;

export function declaresTasks(caps: ClientCapabilities | undefined): boolean {
  const extensions = (caps as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return extensions?.[TASKS_EXTENSION] !== undefined;
}

/** tasks/* from a request that did not declare the extension: the spec's -32021, naming what to declare. */
export function requireTasks(caps: ClientCapabilities | undefined, method: string): void {
  if (declaresTasks(caps)) return;
  throw new ProtocolError(
    MISSING_CAPABILITY,
    `${method} needs the ${TASKS_EXTENSION} extension: declare it in _meta["io.modelcontextprotocol/clientCapabilities"].extensions`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

export function unknownTask(taskId: string): ProtocolError {
  return new ProtocolError(UNKNOWN_TASK, `Unknown taskId: ${taskId} (expired, or created by another mcpx serve)`, { taskId });
}

/**
 * SEP-2243 for the task methods, which the SDK does not check: a `Mcp-Name` header that is not the body's taskId is
 * refused (-32020, HTTP 400). Undefined when the request is fine.
 */
export function taskHeaderMismatch(mcpName: string | undefined, body: unknown): string | undefined {
  if (mcpName === undefined || typeof body !== 'object' || body === null) return undefined;
  const { method, params } = body as { method?: unknown; params?: { taskId?: unknown } };
  if (typeof method !== 'string' || !method.startsWith('tasks/') || typeof params?.taskId !== 'string') return undefined;
  return mcpName.trim() === params.taskId ? undefined : `Mcp-Name ${mcpName.trim()} does not match the taskId ${params.taskId}`;
}

/** The -32020 answer to such a request, under its id. */
export function taskHeaderError(res: ServerResponse, body: unknown, mismatch: string): void {
  const id = (body as { id?: unknown }).id ?? null;
  res
    .writeHead(400, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32020, message: `Header mismatch: ${mismatch}` } }));
}

export const nowIso = (): string => new Date().toISOString();
