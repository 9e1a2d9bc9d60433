/**
 * A call the server made an MCP task outlives its holder: the server keeps the task, so whoever holds the call next
 * (the daemon restarted, or a survivor taking a dead daemon's calls over) follows that task by its id instead of
 * calling the tool again. A question the task asks from then on is a broker question like any other.
 */
import { abandonQuietly } from './rounds.js';
import { drive, track } from './runner-drive.js';
import { save, type RunnerState } from './runner-state.js';
import type { TaskRecord, TaskStep } from './types.js';

const LEFT =
  'the process holding the call stopped while the server kept its MCP task; the next holder follows the task and asks again if it still needs an answer';

type McpTaskRecord = TaskRecord & { mcpTask: NonNullable<TaskRecord['mcpTask']> };

/** Whether the call is an unfinished MCP task the server keeps: a new holder follows it, never calls the tool again. */
export function followsMcpTask(task: TaskRecord | undefined): task is McpTaskRecord {
  return task?.mcpTask !== undefined && (task.state === 'running' || task.state === 'input-required');
}

/**
 * Takes the call over: the record names this holder, and the questions its old holder left waiting are retired
 * (their answer could only go back on that holder's connection; the task asks again if it still needs one).
 */
export async function takeMcpTask(state: RunnerState, task: McpTaskRecord): Promise<void> {
  for (const id of task.waitingOn) await abandonQuietly(state.options.broker, id, LEFT);
  Object.assign(task, { state: 'running', waitingOn: [], pid: state.pid, ...state.holding });
  await save(state, task);
  state.callToTask.set(task.callId, task.id);
}

/** Follows the MCP task of a call taken over (takeMcpTask) to its end; resolves at its next stop. */
export function followMcpTask(state: RunnerState, task: McpTaskRecord): Promise<TaskStep> {
  const request = async (signal: AbortSignal) => {
    const host = await state.options.host(task.session);
    return host.callTool(task.server, task.tool, task.arguments, {
      callId: task.callId,
      ...(task.parent ? { parent: task.parent } : {}),
      ...(task.elicitTtlMs ? { elicitTtlMs: task.elicitTtlMs } : {}),
      followMcpTask: task.mcpTask,
      signal,
    });
  };
  return track(state, task, (first, signal) => drive(state, task, request(signal), first, signal));
}
