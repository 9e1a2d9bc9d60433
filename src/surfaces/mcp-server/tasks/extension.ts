/**
 * The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) as `mcpx serve` speaks it downstream: who declared
 * it (per request, on the 2026-07-28 wire), and the -32021 for a request that did not. (The SDK checks Mcp-Name.)
 */
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

export const nowIso = (): string => new Date().toISOString();
