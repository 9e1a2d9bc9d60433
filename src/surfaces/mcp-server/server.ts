/**
 * One MCP server instance per downstream connection (per request on the modern HTTP leg), over the shared core.
 * A question the upstream asks reaches the client as an `input_required` result carrying mcpx's own signed
 * request state: a modern client answers by retrying, and on a legacy connection the SDK's legacy shim turns it
 * into a real `elicitation/create` mid-call and re-enters here with the answer. A client that declared no
 * elicitation gets the §5.1 text and the mcpx_elicit_* tools instead. Never a request type it did not declare.
 */
import { createHash } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  inputRequired,
  type CallToolResult,
  type ClientCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ElicitRequest } from '../../broker/types.js';
import { isMcpxError } from '../../errors.js';
import type { ServeCore, Stop } from './core.js';
import { createFallbackTools } from './fallback-tools.js';
import { failedResult, passResult, stopResult } from './render.js';
import { asKind, failedOrThrow, METHODS, type Kind, type Served } from './served-kind.js';
import { stopFromStore } from './held-elsewhere.js';
import { relay, wantsRelay, type RelayState } from './relay.js';
import { callNotifications, registerPassThrough } from './passthrough.js';
import type { RequestStateSeal } from './request-state.js';
import { isAction } from '../../constants.js';

export interface ConnectionInfo {
  session: string;
  era: 'legacy' | 'modern';
}

/** What mcpx's request state carries (signed; the client only echoes it). */
export interface ServeState {
  task: string;
  /** The stop the questions belong to. */
  seq: number;
  /** inputRequests key -> question id. */
  asked: Record<string, string>;
  tool: string;
  session: string;
  /** sha256 of the call's arguments: a state is good only for the call it was minted for. */
  args: string;
}

export function argsDigest(args: unknown): string {
  return createHash('sha256')
    .update(stableStringify(args ?? {}))
    .digest('hex')
    .slice(0, 32);
}

function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export function createServeServer(core: ServeCore, seal: RequestStateSeal, connection: ConnectionInfo, version: string): Server {
  const server = new Server(
    { name: 'mcpx', version },
    {
      capabilities: { tools: {}, prompts: {}, resources: { subscribe: true }, logging: {}, completions: {} },
      instructions:
        'mcpx serves the tools of the MCP servers it is configured with. When a tool asks a question and this client cannot show it, the result says so: answer only what you know with mcpx_elicit_answer, decline what you cannot know (a person is asked instead), and collect the result with mcpx_call_result.',
      requestState: { verify: (state, ctx) => seal.verify(state, ctx) },
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

  /** Whether every question can be put to this client as the mode it was asked in. */
  const canAsk = (caps: ClientCapabilities, questions: ElicitRequest[]): boolean => {
    const elicitation = caps.elicitation as { form?: unknown; url?: unknown } | undefined;
    if (!elicitation) return false;
    const form = elicitation.form !== undefined || elicitation.url === undefined;
    return questions.every((q) => (q.mode === 'url' ? elicitation.url !== undefined : form));
  };

  /** `fresh`: the stop was just reached by a call this process drives, so its new questions need no read. */
  const pendingOf = async (step: Stop['step'], fresh: boolean): Promise<ElicitRequest[]> => {
    if (step.status !== 'input-required') return [];
    const requests = await Promise.all(
      step.task.waitingOn.map((id) => (fresh ? core.takeOpened(id) : undefined) ?? core.broker.get(id)),
    );
    return requests.filter((r): r is ElicitRequest => r !== undefined && r.state === 'pending');
  };

  /**
   * The stop as this client gets it: the result, or the questions (asked, or described). `next` waits for the
   * stop after one answered meanwhile; `fresh` reads the first stop's questions as just opened.
   */
  const answer = async (
    { kind, name, args, ctx }: ServedCall,
    stop: Stop,
    {
      next = (s) => core.nextStop(s.step.task.id, s.seq, ctx.mcpReq.signal),
      fresh = false,
    }: { next?: (stop: Stop) => Promise<Stop>; fresh?: boolean } = {},
  ): Promise<Served> => {
    let current = stop;
    for (let first = true; ; first = false) {
      const { step } = current;
      if (step.status === 'complete') return passResult(step.result as CallToolResult);
      if (step.status === 'failed') return failedOrThrow(kind, step.task, step.error);
      const pending = await pendingOf(step, fresh && first);
      // Answered meanwhile (the CLI, REST, the policy): the call has moved on or is about to.
      if (!pending.length) {
        current = await next(current);
        continue;
      }
      if (!canAsk(capabilitiesOf(ctx), pending)) return asKind(kind, stopResult(step, pending, Date.now()), name);
      const asked: Record<string, string> = {};
      const inputRequests: Record<string, ReturnType<typeof inputRequired.elicit>> = {};
      for (const q of pending) {
        const key = q.key && !(q.key in asked) ? q.key : q.id;
        asked[key] = q.id;
        // The spec asks clients to show which server asks; through mcpx that is the upstream, not mcpx.
        const message = `${q.server} (via mcpx) asks: ${q.message}`;
        inputRequests[key] =
          q.mode === 'url'
            ? inputRequired.elicitUrl({ message, url: q.url ?? '' })
            : inputRequired.elicit({
                mode: 'form',
                message,
                requestedSchema: (q.requestedSchema ?? { type: 'object', properties: {} }) as never,
              });
      }
      const state: ServeState = { task: step.task.id, seq: current.seq, asked, tool: name, session, args: argsDigest(args) };
      // A legacy client is asked within this request (the SDK's shim), which goes on; a modern one's ends here.
      if (connection.era === 'modern') core.holdNotifications(step.task.id);
      return inputRequired({ inputRequests, requestState: await seal.mint(state, ctx) });
    }
  };

  /**
   * A client that declared sampling or roots, in front of a modern upstream: relayed (relay.ts). On a legacy
   * connection the SDK's legacy shim puts the relayed requests to the client mid-call and re-enters with its answers.
   */
  const relays = async (upstream: string, ctx: ServerContext): Promise<boolean> => {
    if (!wantsRelay(capabilitiesOf(ctx))) return false;
    // An upstream that cannot be reached fails the usual way, on the usual path.
    return (await core.mcpx.era(upstream).catch(() => undefined)) === 'modern';
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
    if (!ref) {
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
    return run('tool', name, ref, args, ctx) as never;
  });

  /** A tools/call, prompts/get or resources/read of an upstream, in flight until it is answered. */
  const run = async (
    kind: Kind,
    name: string,
    ref: { server: string; tool: string },
    args: Record<string, unknown>,
    ctx: ServerContext,
  ): Promise<Served> => {
    inFlight.add(ctx.mcpReq.id);
    try {
      return await runOnce(kind, name, ref, args, ctx);
    } catch (error) {
      // This serve lost its lease while the request waited on its call (lease-lost.ts): a tool error that says so.
      if (!isMcpxError(error, 'LEASE_LOST')) throw error;
      return failedOrThrow(kind, ref, { code: error.code, message: error.message });
    } finally {
      inFlight.delete(ctx.mcpReq.id);
    }
  };

  /** A tools/call, prompts/get or resources/read of an upstream: started, or (a retry) answered and followed. */
  const runOnce = async (
    kind: Kind,
    name: string,
    ref: { server: string; tool: string },
    args: Record<string, unknown>,
    ctx: ServerContext,
  ): Promise<Served> => {
    const state = ctx.mcpReq.requestState<ServeState | RelayState>();
    const relayed = typeof state === 'object' && state !== null && (state as RelayState).kind === 'relay';
    if (relayed || (state === undefined && (await relays(ref.server, ctx)))) {
      try {
        const request = {
          method: METHODS[kind] ?? 'tools/call',
          name,
          ref,
          args,
          argsDigest: argsDigest(args),
          session,
          caps: capabilitiesOf(ctx),
          ctx,
          notifications: callNotifications(ctx, logLevels.of(ctx)),
        } as const;
        return await relay(core, seal, relayed ? { ...request, state: state as RelayState } : request);
      } catch (error) {
        if (error instanceof ProtocolError) throw error;
        return failedOrThrow(kind, ref, {
          code: isMcpxError(error) ? error.code : 'CALL_FAILED',
          message: (error as Error)?.message ?? String(error),
          ...(isMcpxError(error) && error.data ? { data: error.data } : {}),
        });
      }
    }
    if (state === undefined || typeof state !== 'object') {
      let stop: Stop;
      useOwnConnections();
      try {
        stop = await core.call(session, ref, args, METHODS[kind], callNotifications(ctx, logLevels.of(ctx)));
      } catch (error) {
        return failedOrThrow(kind, ref, {
          code: isMcpxError(error) ? error.code : 'CALL_FAILED',
          message: (error as Error)?.message ?? String(error),
        });
      }
      return answer({ kind, name, args, ctx }, stop, { fresh: true });
    }
    // A retry: the state must be ours (verified already), for this very call and session.
    if (!('task' in state) || state.tool !== name || state.args !== argsDigest(args) || state.session !== session) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
        reason: 'request_state_mismatch',
        detail: 'the requestState was minted for another call, other arguments or another session',
      });
    }
    // From now on the call's notifications go to this request, before an answer lets the call go on. A legacy
    // client's "retry" is the SDK re-entering its still open request: the same request, so nothing changes.
    core.notifyTo(state.task, callNotifications(ctx, logLevels.of(ctx)));
    const responses = (ctx.mcpReq.inputResponses ?? {}) as Record<string, unknown>;
    const answeredHere = new Set<string>();
    for (const [key, id] of Object.entries(state.asked)) {
      const response = responses[key] as { action?: unknown; content?: unknown } | undefined;
      if (!response || typeof response !== 'object' || !isAction(response.action)) continue; // missing: asked again below
      try {
        await core.broker.respond({
          id,
          action: response.action as 'accept' | 'decline' | 'cancel',
          ...(response.action === 'accept' && response.content && typeof response.content === 'object'
            ? { content: response.content as Record<string, unknown> }
            : {}),
          by: 'mcp',
          session,
        });
        answeredHere.add(id);
        core.takeOpened(id);
      } catch (error) {
        // Invalid content: the question stays pending and is asked again. Answered or expired elsewhere: that answer stands.
        if (!isMcpxError(error)) throw error;
      }
    }
    const latest = core.latestStop(state.task);
    if (latest) {
      let from = latest.seq > state.seq ? latest : { seq: state.seq, step: latest.step };
      // Every question of that stop was just answered here: the call is moving on, so wait for its next stop
      // instead of reading the questions back from the store.
      const movingOn =
        from.seq === state.seq &&
        from.step.status === 'input-required' &&
        from.step.task.waitingOn.every((id) => answeredHere.has(id));
      if (movingOn) from = await core.nextStop(state.task, state.seq, ctx.mcpReq.signal);
      return answer({ kind, name, args, ctx }, from, { fresh: movingOn });
    }
    // Another serve on the store holds the call (or held it and stopped): the store says where it stands.
    const elsewhere = async (): Promise<Stop> => {
      const found = await stopFromStore(core, state.task, ctx.mcpReq.signal);
      if (found) return found;
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
        reason: 'request_state_unknown_call',
        detail: 'no mcpx serve on this store holds that call any more; run it again',
      });
    };
    return answer({ kind, name, args, ctx }, await elsewhere(), { next: elsewhere });
  };

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

/** The request a stop is answered to: its kind, the name the client called, its arguments and its context. */
interface ServedCall {
  kind: Kind;
  name: string;
  args: Record<string, unknown>;
  ctx: ServerContext;
}
