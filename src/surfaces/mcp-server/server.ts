/**
 * One MCP server instance per downstream connection (per request on the modern HTTP leg), over the shared core:
 * the SDK's server for every method; a call it serves goes to calls.ts, which decides what the client gets.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Catalog, ServeCore } from './core.js';
import { createCalls, type CallContext, type ConnectionInfo } from './calls.js';
import { createFallbackTools } from './fallback-tools.js';
import { failedResult } from './render.js';
import type { Kind, Served } from './served-kind.js';
import { callNotifications, registerPassThrough } from './passthrough.js';
import type { RequestStateSeal } from './request-state.js';
import { TASKS_EXTENSION } from './tasks/extension.js';
import { ownsAsTask, registerTaskMethods, upstreamRunsTasks } from './tasks/handlers.js';
import { ownTasksOf } from './tasks/own.js';
import { LEGACY_TASKS_CAPABILITY, legacyTask, registerLegacyTaskMethods, wantsLegacyTask } from './tasks/legacy.js';

export type { ConnectionInfo };

export const SERVE_INSTRUCTIONS =
  'mcpx serves the tools of the MCP servers it is configured with. When a tool asks a question and this client cannot show it, the result says so: answer only what you know with mcpx_elicit_answer, decline what you cannot know (a person is asked instead), and collect the result with mcpx_call_result.';

export function createServeServer(core: ServeCore, seal: RequestStateSeal, connection: ConnectionInfo, version: string): Server {
  const server = new Server(
    { name: 'mcpx', version },
    {
      capabilities: {
        tools: {},
        prompts: {},
        resources: { subscribe: true },
        logging: {},
        completions: {},
        // Tasks: the extension on the 2026-07-28 wire (tasks/handlers.ts), SEP-1686's capability on 2025-11-25 (tasks/legacy.ts).
        ...(connection.era === 'modern' ? { extensions: { [TASKS_EXTENSION]: {} } } : { tasks: LEGACY_TASKS_CAPABILITY }),
      },
      instructions: SERVE_INSTRUCTIONS,
      requestState: { verify: (state, ctx) => seal.verify(state, ctx.mcpReq.method) },
    },
  );
  const { session } = connection;
  const fallback = createFallbackTools(core, session);
  const logLevels = registerPassThrough(server, core, connection.era);

  const capabilitiesOf = (ctx: ServerContext): ClientCapabilities => {
    if (connection.era === 'modern')
      return ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] ??
        {}) as ClientCapabilities;
    return server.getClientCapabilities() ?? {};
  };

  // A legacy client that declared sampling or roots gets upstream connections of its own (core.ownConnections): a
  // legacy upstream's sampling/createMessage and roots/list then go to it, on the stream of one of its calls in flight.
  const inFlight = new Set<string | number>();
  let ownConnections: (() => Promise<void>) | undefined;
  const useOwnConnections = (): void => {
    if (connection.era !== 'legacy' || ownConnections) return;
    const caps = server.getClientCapabilities() ?? {};
    if (!caps.sampling && !caps.roots) return;
    const related = () => {
      const id = [...inFlight].at(-1);
      return id === undefined ? {} : { relatedRequestId: id };
    };
    ownConnections =
      core.ownConnections(session, {
        ...(caps.sampling
          ? { sampling: async (params) => (await server.createMessage(params as never, related())) as Record<string, unknown> }
          : {}),
        ...(caps.roots
          ? { roots: async (params) => (await server.listRoots(params as never, related())) as Record<string, unknown> }
          : {}),
      }) ?? (async () => undefined);
    const closed = server.onclose;
    server.onclose = () => {
      closed?.();
      void ownConnections?.();
    };
  };
  const calls = createCalls(core, seal, connection, useOwnConnections);
  if (connection.era === 'modern') registerTaskMethods(server, core, session, capabilitiesOf);
  else registerLegacyTaskMethods(server, core, session);

  /** A tools/call, prompts/get or resources/read of an upstream, in flight until it is answered. */
  const run = async (
    kind: Kind,
    name: string,
    ref: { server: string; tool: string },
    args: Record<string, unknown>,
    ctx: ServerContext,
    extra: Pick<CallContext, 'mirrorsTask'> = {},
  ): Promise<Served> => {
    inFlight.add(ctx.mcpReq.id);
    try {
      const call: CallContext = {
        signal: ctx.mcpReq.signal,
        capabilities: capabilitiesOf(ctx),
        state: ctx.mcpReq.requestState(),
        inputResponses: ctx.mcpReq.inputResponses as Record<string, unknown> | undefined,
        notifications: callNotifications(ctx, logLevels.of(ctx)),
        ...extra,
      };
      return await calls.run(kind, name, ref, args, call);
    } finally {
      inFlight.delete(ctx.mcpReq.id);
    }
  };

  server.setRequestHandler('tools/list', async () => {
    // Listed afresh each time: upstream lists change, and names stay the same for the same tools.
    core.refresh();
    const catalog = await core.catalog();
    return { tools: [...catalog.tools, ...fallback.definitions] };
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (fallback.has(name)) return fallback.call(name, args, ctx.mcpReq.signal);
    let catalog = await core.catalog();
    if (!catalog.byName.has(name)) {
      // A tool registered since the last listing (some servers add tools after initialize): list once more.
      core.refresh();
      catalog = await core.catalog();
    }
    const ref = catalog.byName.get(name);
    if (!ref) return unknownTool(core, catalog, name);
    // A task-capable client's call that does not end at once becomes a task it comes back to (tasks/handlers.ts).
    if (connection.era === 'legacy' && wantsLegacyTask(capabilitiesOf(ctx), request.params))
      // With an empty content: the v2 SDK's 2025-11-25 seam refuses a `task` body without one (as its server adds on 2026-07-28).
      return { task: legacyTask(ownTasksOf(core).startTask(session, ref, args)), content: [] } as never;
    // An upstream task tool keeps its own shape (rounds, then a task when it makes one); any other becomes ours.
    if (connection.era === 'modern' && ownsAsTask(capabilitiesOf(ctx))) {
      const listed = catalog.tools.find((tool) => tool.name === name);
      if (await upstreamRunsTasks(core, ref.server, listed))
        return run('tool', name, ref, args, ctx, { mirrorsTask: true }) as never;
      return (await ownTasksOf(core).start(session, ref, args)) as never;
    }
    return run('tool', name, ref, args, ctx) as never;
  });

  server.setRequestHandler('prompts/list', async () => ({ prompts: (await core.catalog()).prompts }));
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const name = request.params.name;
    const ref = (await core.catalog()).promptsByName.get(name);
    if (!ref) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name} (see prompts/list)`);
    return run('prompt', name, ref, (request.params.arguments ?? {}) as Record<string, unknown>, ctx) as never;
  });
  server.setRequestHandler('resources/list', async () => ({ resources: (await core.catalog()).resources }));
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: (await core.catalog()).resourceTemplates,
  }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const uri = request.params.uri;
    const catalog = await core.catalog();
    // A listed URI goes to the server that listed it; any other (a template's) to the only server, if one.
    const server = catalog.serverOfUri.get(uri) ?? (core.serverNames().length === 1 ? core.serverNames()[0] : undefined);
    if (!server) throw new ProtocolError(-32002 as ProtocolErrorCode, `Resource not found: ${uri}`, { uri });
    return run('resource', uri, { server, tool: uri }, {}, ctx) as never;
  });

  return server;
}

/** A tool no upstream lists: the failure of a server that could not be listed, when it is likely its tool. */
function unknownTool(core: ServeCore, catalog: Catalog, name: string): CallToolResult {
  const failedServer = [...catalog.failed.keys()].find((s) => name.startsWith(`${s}__`) || core.serverNames().length === 1);
  if (failedServer) {
    const tool = name.startsWith(`${failedServer}__`) ? name.slice(failedServer.length + 2) : name;
    return failedResult(
      { server: failedServer, tool },
      { code: 'CONNECT_FAILED', message: `the server could not be started or listed: ${catalog.failed.get(failedServer)!}` },
    );
  }
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Unknown tool: ${name}. mcpx serves ${catalog.byName.size} upstream tools (see tools/list) from ${core.serverNames().join(', ') || 'no servers'}.`,
  );
}
