/**
 * serve's own tasks on the 2025-11-25 wire (SEP-1686, experimental): a `tools/call` with `params.task` from a client
 * that declared `capabilities.tasks` gets `{task}`; tasks/get, tasks/list and tasks/cancel read the task, and
 * tasks/result waits for the end, asking the client the call's questions on its way (as `elicitation/create`).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type ClientCapabilities,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ElicitRequest } from '../../../broker/index.js';
import { canAsk } from '../served-stop.js';
import type { ServeCore } from '../core.js';
import { cleanSchema, forwardableUrl, forwardedMessage, refusalOf } from '../forwarded-text.js';
import { POLL_INTERVAL_MS, TASK_TTL_MS } from './extension.js';
import { ownTasksOf, type TaskView } from './own.js';

/** What serve declares to a 2025-11-25 client: tasks for tools/call, listed and cancelled. */
export const LEGACY_TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const TaskParams = z.looseObject({ taskId: z.string() });

export const wantsLegacyTask = (caps: ClientCapabilities, params: Record<string, unknown>): boolean =>
  caps.tasks !== undefined && typeof params.task === 'object' && params.task !== null;

export function legacyTask(view: TaskView): Record<string, unknown> {
  return {
    taskId: view.id,
    status: view.status,
    createdAt: view.createdAt,
    lastUpdatedAt: view.lastUpdatedAt,
    ttl: TASK_TTL_MS,
    pollInterval: POLL_INTERVAL_MS,
  };
}

export function registerLegacyTaskMethods(server: Server, core: ServeCore, session: string): void {
  const own = ownTasksOf(core);
  const mine = (taskId: string): TaskView => {
    const view = own.view(taskId);
    if (view.session !== session) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown taskId: ${taskId}`);
    return view;
  };
  /** Puts one question to the client within its tasks/result request, and gives the broker its answer. */
  const ask = async (q: ElicitRequest, ctx: ServerContext, taskId: string): Promise<void> => {
    const message = forwardedMessage(q.server, q.message);
    const url = forwardableUrl(q);
    const params =
      url && 'href' in url
        ? { mode: 'url' as const, message, url: url.href, elicitationId: q.id }
        : {
            mode: 'form' as const,
            message,
            requestedSchema: cleanSchema(q.requestedSchema ?? { type: 'object', properties: {} }),
          };
    const answer = await server.elicitInput({ ...params, _meta: { [RELATED_TASK]: { taskId } } } as never, {
      relatedRequestId: ctx.mcpReq.id,
      signal: ctx.mcpReq.signal,
    });
    await own.update(taskId, session, { [q.id]: answer });
  };

  server.setRequestHandler('tasks/get', { params: TaskParams }, (async (params: z.infer<typeof TaskParams>) =>
    legacyTask(mine(params.taskId))) as never);
  server.setRequestHandler('tasks/list', { params: z.looseObject({}) }, (async () => ({
    tasks: own.list(session).map(legacyTask),
  })) as never);
  server.setRequestHandler('tasks/cancel', { params: TaskParams }, (async (params: z.infer<typeof TaskParams>) => {
    mine(params.taskId);
    await own.cancel(params.taskId, session);
    return legacyTask(mine(params.taskId));
  }) as never);
  server.setRequestHandler('tasks/result', { params: TaskParams }, (async (
    params: z.infer<typeof TaskParams>,
    ctx: ServerContext,
  ) => {
    const { taskId } = params;
    const caps = server.getClientCapabilities() ?? {};
    for (;;) {
      const view = mine(taskId);
      if (view.status === 'completed') return { ...view.result, _meta: { [RELATED_TASK]: { taskId } } };
      if (view.status === 'failed') throw new ProtocolError(view.error!.code, view.error!.message);
      if (view.status === 'cancelled') throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `Task ${taskId} was cancelled`);
      const changed = own.changed(taskId, ctx.mcpReq.signal);
      const pending = (await own.pending(taskId)).filter((q) => !refusalOf(q));
      // Questions this client can be asked are asked now; others wait for a person (mcpx elicit answer).
      if (view.status === 'input_required' && pending.length && canAsk(caps, pending)) {
        for (const q of pending) await ask(q, ctx, taskId);
      }
      await Promise.race([changed, new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS).unref())]);
      if (ctx.mcpReq.signal.aborted) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'tasks/result was cancelled');
    }
  }) as never);
}
