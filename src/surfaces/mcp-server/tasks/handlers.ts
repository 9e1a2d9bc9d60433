/**
 * The task methods on serve's per-request server (2026-07-28): tasks/get, tasks/update and tasks/cancel, each for a
 * request that declared the extension, on serve's own tasks; and which tools/call becomes one.
 */
import type { ClientCapabilities, Server, ServerContext, Tool } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ServeCore } from '../core.js';
import { declaresTasks, requireTasks, TASKS_EXTENSION } from './extension.js';
import { ownTasksOf } from './own.js';

const TaskParams = z.looseObject({ taskId: z.string() });
type TaskMethod = 'tasks/get' | 'tasks/update' | 'tasks/cancel';

/**
 * Whether serve makes this call a task of its own: the request declared the extension. Before relay.ts: such a
 * client's upstream questions wait in the broker for tasks/get to show (sampling and roots are not relayed then).
 */
export function ownsAsTask(caps: ClientCapabilities): boolean {
  return declaresTasks(caps);
}

/**
 * Whether the upstream decides itself when this tool's call becomes a task: a tool listed with `execution.taskSupport`
 * (2025-11-25), or any tool of a server declaring the tasks extension (2026-07-28 tools carry no taskSupport).
 */
export async function upstreamRunsTasks(core: ServeCore, server: string, tool: Tool | undefined): Promise<boolean> {
  const support = tool?.execution?.taskSupport;
  if (support === 'optional' || support === 'required') return true;
  const caps = await core.mcpx.capabilities(server).catch(() => undefined);
  return caps?.extensions?.[TASKS_EXTENSION] !== undefined;
}

export function registerTaskMethods(
  server: Server,
  core: ServeCore,
  session: string,
  capabilitiesOf: (ctx: ServerContext) => ClientCapabilities,
): void {
  const own = ownTasksOf(core);
  const handle =
    (method: TaskMethod) =>
    async (params: z.infer<typeof TaskParams>, ctx: ServerContext): Promise<Record<string, unknown>> => {
      const caps = capabilitiesOf(ctx);
      requireTasks(caps, method);
      if (method === 'tasks/get') return own.get(params.taskId, caps);
      if (method === 'tasks/cancel') await own.cancel(params.taskId, session);
      else {
        // The SDK lifts inputResponses off every request's params into its context (SEP-2322's envelope).
        const responses = (ctx.mcpReq.inputResponses ?? params.inputResponses) as Record<string, unknown> | undefined;
        await own.update(params.taskId, session, responses);
      }
      return { resultType: 'complete' };
    };
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'] as const)
    server.setRequestHandler(method, { params: TaskParams }, handle(method) as never);
}
