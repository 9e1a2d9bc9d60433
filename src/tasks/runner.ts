/**
 * The task runner: drives a call to completion while its questions wait in the broker.
 * callTool (the pipeline is the host's onElicit) -> input-required: store the task and its questions, then await
 * each answer in the broker. Legacy: the answer goes back on the open call (live.respond). Modern: once every
 * question of the round is answered, the call is re-sent (host.resume), which may ask again.
 * Expiry is the broker answering cancel, so cancel reaches the server in both eras.
 */
import { newCallId, newTaskId } from '../ids.js';
import { withProgress } from './progress.js';
import { LEAVE_MCP_TASK, type McpTaskHandle } from '../client/index.js';
import type { CallOutcome, Continuation, TaskRecord, TaskResult } from './types.js';
import { abandonQuietly } from './rounds.js';
import { drive, resumeRound, track, watchOpens } from './runner-drive.js';
import { createRunnerState, save, update, type Driving, type RunnerState } from './runner-state.js';
import { followMcpTask, followsMcpTask, takeMcpTask } from './mcp-follow.js';
import { isProcessHolder } from './handoff.js';
import type { StartInput, TaskRunner, TaskRunnerOptions } from './runner-types.js';

export type { SessionSource, StartInput, TaskRunner, TaskRunnerOptions } from './runner-types.js';

/** A new call's task record, held here. */
function newTask(state: RunnerState, input: StartInput): TaskRecord {
  const at = state.now();
  return {
    id: newTaskId(),
    callId: newCallId(),
    ...(input.parent ? { parent: input.parent } : {}),
    server: input.server,
    tool: input.tool,
    ...(input.method ? { method: input.method } : {}),
    arguments: input.arguments,
    session: input.session,
    ...(input.elicit ? { elicit: input.elicit } : {}),
    ...(input.elicitTtlMs ? { elicitTtlMs: input.elicitTtlMs } : {}),
    state: 'running',
    questions: [],
    waitingOn: [],
    pid: state.pid,
    ...state.holding,
    createdAt: at,
    updatedAt: at,
  };
}

/** Sends the call's first request on the session's host (a tool call, a prompt get or a resource read). */
async function firstRequest(
  state: RunnerState,
  input: StartInput,
  task: TaskRecord,
  signal: AbortSignal,
): Promise<CallOutcome<TaskResult>> {
  const host = await state.options.host(input.session, input.sessionSource);
  const callOptions = {
    callId: task.callId,
    ...(input.parent ? { parent: input.parent } : {}),
    ...(input.elicitTtlMs ? { elicitTtlMs: input.elicitTtlMs } : {}),
    ...(input.signInOnly ? { signInOnly: input.signInOnly } : {}),
    ...(input.task !== undefined ? { task: input.task } : {}),
    // The server's task id is stored before the task is followed: a holder that dies leaves the next one the task
    // to follow (mcp-follow.ts), never a tool to call again. `mcpx task show` names it.
    onMcpTask: async (handle: McpTaskHandle) => {
      task.mcpTask = { taskId: handle.taskId, era: handle.era };
      await update(state, task).catch(() => undefined);
    },
    // Only a caller who follows asks the server for progress; re-sent rounds always do (`task result` may follow).
    ...withProgress(input, task, state.options.onProgress),
    ...(state.lazy ? { onRound: (round: Continuation) => void state.waitingRounds.set(task.id, round) } : {}),
    signal,
  };
  if (input.method === 'prompts/get')
    return host.getPrompt(input.server, input.tool, input.arguments as Record<string, string>, callOptions);
  if (input.method === 'resources/read') return host.readResource(input.server, input.tool, callOptions);
  return host.callTool(input.server, input.tool, input.arguments, callOptions);
}

/** Resolves once the task settles here (or at the timeout, or the abort). */
function settledHere(state: RunnerState, id: string, options: { timeoutMs?: number; signal?: AbortSignal }): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(finish, options.timeoutMs);
    function finish(): void {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', finish);
      state.settled.get(id)?.delete(finish);
      resolve();
    }
    options.signal?.addEventListener('abort', finish, { once: true });
    let wakers = state.settled.get(id);
    if (!wakers) state.settled.set(id, (wakers = new Set()));
    wakers.add(finish);
  });
}

/**
 * After a restart: this holder's modern rounds resume, its MCP tasks are followed again, its legacy questions are
 * abandoned (their connection died).
 */
async function recover(state: RunnerState): Promise<{ abandoned: string[]; resumed: string[] }> {
  const { options, pid, holding } = state;
  const abandoned: string[] = [];
  const resumed: string[] = [];
  for (const task of await options.store.unfinished(options.holder)) {
    if (task.holder !== options.holder || state.driving.has(task.id)) continue;
    if (followsMcpTask(task)) {
      await takeMcpTask(state, task);
      resumed.push(task.id);
      void followMcpTask(state, task);
      continue;
    }
    if (task.state === 'input-required' && task.era === 'modern' && task.continuation) {
      Object.assign(task, { pid, ...holding });
      await save(state, task);
      resumed.push(task.id);
      void resumeRound(state, task);
      continue;
    }
    const reason =
      'the daemon holding the call stopped, and a 2025-11-25 call (held on its connection) cannot outlive that connection';
    for (const id of task.waitingOn) {
      await abandonQuietly(options.broker, id, reason);
      abandoned.push(id);
    }
    Object.assign(task, {
      state: 'failed',
      waitingOn: [],
      error: { code: 'ELICITATION_ABANDONED', message: `${reason}; run the call again` },
    });
    await save(state, task);
  }
  return { abandoned, resumed };
}

/**
 * Stops driving: legacy (and unresumable) calls fail with `reason`, modern rounds stay resumable, MCP tasks are left
 * to their server (not cancelled) for the next holder to follow.
 */
async function closeRunner(state: RunnerState, reason: string, lost: boolean): Promise<void> {
  const entries = [...state.driving.values()];
  // Only a daemon's calls have a next holder to follow them (recover, takeover); a serve's or an app's end here.
  const followed = state.options.resumable !== false && !isProcessHolder(state.options.holder);
  const leftToServer = (entry: Driving): boolean => followed && entry.task.mcpTask !== undefined;
  for (const entry of entries) {
    const taken = lost && entry.task.era === 'modern';
    if (leftToServer(entry)) {
      // Their questions' answers could only go back on this holder's connection; the next holder asks again.
      if (!lost) for (const id of entry.task.waitingOn) await abandonQuietly(state.options.broker, id, reason);
      entry.abort.abort(LEAVE_MCP_TASK);
      continue;
    }
    if (!taken && (entry.task.era === 'legacy' || entry.task.state === 'running' || state.options.resumable === false)) {
      for (const id of entry.task.waitingOn) await abandonQuietly(state.options.broker, id, reason);
      Object.assign(entry.task, {
        state: 'failed',
        waitingOn: [],
        error: { code: 'ELICITATION_ABANDONED', message: `${reason}; run the call again` },
      });
      await update(state, entry.task).catch(() => undefined);
    }
    entry.abort.abort();
  }
  // Modern rounds stop at once (their awaits abort); legacy calls end when the host closes their connections.
  await Promise.allSettled(entries.filter((e) => e.task.era === 'modern' || leftToServer(e)).map((e) => e.done));
}

export function createTaskRunner(options: TaskRunnerOptions): TaskRunner {
  const state = createRunnerState(options);
  const { store } = options;
  const { driving, callToTask } = state;
  const stopWatching = watchOpens(state);
  const drivenTask = (callId: string): TaskRecord | undefined => {
    const taskId = callToTask.get(callId);
    return taskId ? driving.get(taskId)?.task : undefined;
  };

  return {
    async start(input) {
      if (state.closed) throw new Error('the task runner is closed');
      const task = newTask(state, input);
      callToTask.set(task.callId, task.id);
      if (input.notifications) state.callerNotifications.set(task.id, input.notifications);
      if (!state.lazy) await save(state, task);
      return track(state, task, (first, signal) => drive(state, task, firstRequest(state, input, task, signal), first, signal));
    },

    get: (id) => store.get(id),

    async wait(id, waitOptions = {}) {
      if (driving.has(id) && waitOptions.timeoutMs !== 0) await settledHere(state, id, waitOptions);
      return store.get(id);
    },

    taskOfCall: (callId) => callToTask.get(callId),
    isAmbiguous: (questionId) => state.ambiguous.has(questionId),
    elicitModeOf: (callId) => drivenTask(callId)?.elicit,

    async adopt(task) {
      if (state.closed) throw new Error('the task runner is closed');
      if (followsMcpTask(task)) {
        await takeMcpTask(state, task);
        return followMcpTask(state, task);
      }
      if (task.state !== 'input-required' || task.era !== 'modern' || !task.continuation)
        throw new Error(`the task ${task.id} is not a 2026-07-28 call waiting at a round`);
      Object.assign(task, { pid: state.pid, ...state.holding });
      await save(state, task);
      callToTask.set(task.callId, task.id);
      return resumeRound(state, task);
    },

    sessionOfCall: (callId) => drivenTask(callId)?.session,
    recover: () => recover(state),

    active: (session) =>
      session === undefined ? driving.size : [...driving.values()].filter((d) => d.task.session === session).length,

    async close(reason = 'the daemon holding the call stopped', closeOptions = {}) {
      state.closed = true;
      stopWatching();
      await closeRunner(state, reason, closeOptions.lost === true);
    },
  };
}
