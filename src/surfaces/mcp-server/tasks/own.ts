/**
 * mcpx's own durable calls as MCP tasks: a task-capable client's call that does not finish at once (it waits on a
 * question, a long approval, a slow upstream) gets a task id, and the client comes back with tasks/get and answers
 * with tasks/update (or a person answers with `mcpx elicit answer`) instead of holding a request open.
 */
import { randomBytes } from 'node:crypto';
import { inputRequired, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/server';
import type { ElicitRequest } from '../../../broker/index.js';
import { isAction } from '../../../constants.js';
import { isMcpxError } from '../../../errors.js';
import { canAsk } from '../served-stop.js';
import type { ServeCore, Stop } from '../core.js';
import { cleanSchema, forwardableUrl, forwardedMessage, refusalOf } from '../forwarded-text.js';
import type { ToolRef } from '../names.js';
import { passResult } from '../render.js';
import { failedOrThrow } from '../served-kind.js';
import { POLL_INTERVAL_MS, TASK_TTL_MS, nowIso, unknownTask } from './extension.js';

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

interface OwnTask {
  id: string;
  session: string;
  ref: ToolRef;
  status: Status;
  createdAt: string;
  lastUpdatedAt: string;
  expires: number;
  /** The mcpx task (tsk-…) holding the call, once it reached a stop. */
  mcpxTask?: string;
  stop?: Stop;
  result?: CallToolResult;
  error?: { code: number; message: string };
  /** inputRequests key -> question id, as last shown. */
  asked: Record<string, string>;
}

/** What the 2025-11-25 wire (legacy.ts) reads of a task. */
export type TaskView = Pick<OwnTask, 'id' | 'session' | 'status' | 'createdAt' | 'lastUpdatedAt' | 'result' | 'error'>;

export interface OwnTasks {
  /** Runs the call; its result when it ends within the grace, else a CreateTaskResult. */
  start(session: string, ref: ToolRef, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * The call's next stop as the client gets it: its result within the grace, else a CreateTaskResult, and always a
   * task once the upstream made the call one. `round`: how a question asked before that is answered (input_required).
   */
  answerOrTask(
    session: string,
    ref: ToolRef,
    next: Promise<Stop>,
    round?: (stop: Stop) => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>>;
  /** A task however soon the call ends (a 2025-11-25 client asked for one). */
  startTask(session: string, ref: ToolRef, args: Record<string, unknown>): TaskView;
  view(taskId: string): TaskView;
  list(session: string): TaskView[];
  /** Resolves at the task's next change (or at once when `signal` is aborted). */
  changed(taskId: string, signal?: AbortSignal): Promise<void>;
  /** The questions the task's call waits on, still unanswered. */
  pending(taskId: string): Promise<ElicitRequest[]>;
  get(taskId: string, caps: ClientCapabilities): Promise<Record<string, unknown>>;
  update(taskId: string, session: string, responses: Record<string, unknown> | undefined): Promise<void>;
  cancel(taskId: string, session: string): Promise<void>;
}

const TERMINAL = new Set<Status>(['completed', 'failed', 'cancelled']);

/** One table per serve core: every connection and request of that serve sees the same tasks. */
const tables = new WeakMap<ServeCore, OwnTasks>();
export const ownTasksOf = (core: ServeCore): OwnTasks => tables.get(core) ?? remember(core, createOwnTasks(core));

function remember(core: ServeCore, table: OwnTasks): OwnTasks {
  tables.set(core, table);
  return table;
}

function createOwnTasks(core: ServeCore): OwnTasks {
  const tasks = new Map<string, OwnTask>();
  const sweep = (): void => {
    const now = Date.now();
    for (const [id, task] of tasks) if (task.expires <= now) tasks.delete(id);
  };
  const find = (taskId: string): OwnTask => {
    sweep();
    const task = tasks.get(taskId);
    if (!task) throw unknownTask(taskId);
    return task;
  };
  const waiters = new Map<string, Set<() => void>>();
  const set = (task: OwnTask, status: Status, fields: Partial<OwnTask> = {}): void => {
    if (TERMINAL.has(task.status)) return;
    Object.assign(task, fields, { status, lastUpdatedAt: nowIso() });
    for (const wake of waiters.get(task.id) ?? []) wake();
    waiters.delete(task.id);
  };
  const settleAt = (task: OwnTask, stop: Stop): boolean => {
    task.stop = stop;
    task.mcpxTask = stop.step.task.id;
    const { step } = stop;
    if (step.status === 'complete') set(task, 'completed', { result: passResult(step.result as CallToolResult) });
    else if (step.status === 'failed') {
      // An upstream's JSON-RPC error is the task's failure; mcpx's own (it could not call) a tool error, as serve shows it.
      const code = step.error.data?.code;
      if (typeof code === 'number')
        set(task, 'failed', { error: { code, message: String(step.error.data?.upstreamMessage ?? step.error.message) } });
      else set(task, 'completed', { result: failedOrThrow('tool', task.ref, step.error) });
    } else set(task, 'input_required');
    return step.status !== 'input-required';
  };
  /** Follows the call from stop to stop until it ends (or the task was cancelled). */
  const follow = async (task: OwnTask, first: Promise<Stop>): Promise<void> => {
    try {
      let stop = await first;
      while (!settleAt(task, stop) && !TERMINAL.has(task.status)) stop = await core.nextStop(stop.step.task.id, stop.seq);
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      set(task, 'failed', { error: { code: -32603, message: isMcpxError(error) ? `${error.code}: ${message}` : message } });
    }
  };

  const pendingOf = (task: OwnTask): Promise<ElicitRequest[]> => pendingAt(core, task);

  const create = (session: string, ref: ToolRef, first: Promise<Stop>): OwnTask => {
    const createdAt = nowIso();
    const task: OwnTask = {
      id: `mcpx-${randomBytes(8).toString('hex')}`,
      session,
      ref,
      status: 'working',
      createdAt,
      lastUpdatedAt: createdAt,
      expires: Date.now() + TASK_TTL_MS,
      asked: {},
    };
    tasks.set(task.id, task);
    void follow(task, first);
    return task;
  };

  const answerOrTask: OwnTasks['answerOrTask'] = async (session, ref, next, round) => {
    const quick = await Promise.race([
      next,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), core.taskGraceMs).unref()),
    ]);
    // A call the upstream made a task stays one here, however it ends (its client polls it as it would upstream).
    if (quick && !quick.step.task.mcpTask) {
      if (quick.step.status === 'complete') return passResult(quick.step.result as CallToolResult);
      if (quick.step.status === 'failed') return failedOrThrow('tool', ref, quick.step.error);
      if (round) return round(quick);
    }
    return { resultType: 'task', ...envelope(create(session, ref, next)) };
  };

  return {
    start: (session, ref, args) => answerOrTask(session, ref, core.call(session, ref, args)),
    answerOrTask,
    startTask: (session, ref, args) => create(session, ref, core.call(session, ref, args)),
    view: (taskId) => find(taskId),
    list: (session) => (sweep(), [...tasks.values()].filter((t) => t.session === session)),
    changed: (taskId, signal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const set = waiters.get(taskId) ?? new Set();
        waiters.set(taskId, set.add(resolve));
        signal?.addEventListener('abort', () => resolve(), { once: true });
      }),
    pending: async (taskId) => pendingOf(find(taskId)),
    async get(taskId, caps) {
      const task = find(taskId);
      const out: Record<string, unknown> = { resultType: 'complete', ...envelope(task) };
      if (task.status === 'completed') out.result = task.result;
      if (task.status === 'failed') out.error = task.error;
      if (task.status !== 'input_required') return out;
      const pending = (await pendingOf(task)).filter((q) => !refusalOf(q));
      // Answered meanwhile (tasks/update, mcpx elicit answer, a policy): the call goes on.
      if (!pending.length) return { ...out, status: 'working' };
      if (!canAsk(caps, pending)) {
        const ids = pending.map((q) => q.id).join(', ');
        return { ...out, status: 'working', statusMessage: `waiting for a person to answer ${ids} (mcpx elicit answer)` };
      }
      task.asked = {};
      const inputRequests: Record<string, unknown> = {};
      for (const q of pending) {
        const key = q.key && !(q.key in task.asked) ? q.key : q.id;
        task.asked[key] = q.id;
        inputRequests[key] = asInputRequest(q);
      }
      return { ...out, inputRequests };
    },
    async update(taskId, session, responses) {
      const task = find(taskId);
      const asked = new Map((await pendingOf(task)).map((q) => [q.id, q]));
      for (const [key, response] of Object.entries(responses ?? {})) {
        const id = task.asked[key] ?? key;
        const answer = response as { action?: unknown; content?: unknown } | undefined;
        if (!answer || typeof answer !== 'object' || !isAction(answer.action)) continue;
        await core.broker
          .respond({
            id,
            action: answer.action as 'accept' | 'decline' | 'cancel',
            ...(answer.action === 'accept' && answer.content && typeof answer.content === 'object'
              ? { content: askedFields(answer.content as Record<string, unknown>, asked.get(id)) }
              : {}),
            by: 'mcp',
            session,
          })
          .catch((error: unknown) => {
            // Invalid content, or answered or expired elsewhere: asked again, or that answer stands.
            if (!isMcpxError(error)) throw error;
          });
      }
    },
    async cancel(taskId, session) {
      const task = find(taskId);
      if (TERMINAL.has(task.status)) return;
      set(task, 'cancelled');
      // The call's open questions are cancelled, as a person dismissing them would: the upstream hears cancel.
      for (const q of await pendingOf(task))
        await core.broker.respond({ id: q.id, action: 'cancel', by: 'mcp', session }).catch((error: unknown) => {
          if (!isMcpxError(error)) throw error;
        });
    },
  };
}

/** The questions of the task's stop still waiting for an answer. */
async function pendingAt(core: ServeCore, task: OwnTask): Promise<ElicitRequest[]> {
  const step = task.stop?.step;
  if (step?.status !== 'input-required') return [];
  const found = await Promise.all(step.task.waitingOn.map((id) => core.broker.get(id)));
  return found.filter((q): q is ElicitRequest => q !== undefined && q.state === 'pending');
}

/**
 * A client's content without the fields the question did not ask for (a task client may send more, and the schema
 * allows more); a person's typo at the terminal is still refused by the broker, which checks every field it gets.
 */
function askedFields(content: Record<string, unknown>, question: ElicitRequest | undefined): Record<string, unknown> {
  const properties = question?.requestedSchema?.properties;
  if (!properties) return content;
  return Object.fromEntries(Object.entries(content).filter(([name]) => name in properties));
}

function envelope(task: OwnTask): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: POLL_INTERVAL_MS,
    ...(task.mcpxTask ? { _meta: { 'io.mcpx/task': task.mcpxTask } } : {}),
  };
}

function asInputRequest(q: ElicitRequest): unknown {
  const message = forwardedMessage(q.server, q.message);
  const url = forwardableUrl(q);
  return url && 'href' in url
    ? inputRequired.elicitUrl({ message, url: url.href })
    : inputRequired.elicit({
        mode: 'form',
        message,
        requestedSchema: cleanSchema(q.requestedSchema ?? { type: 'object', properties: {} }) as never,
      });
}
