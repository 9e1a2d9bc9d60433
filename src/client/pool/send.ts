/**
 * A request on the server's open connection, in the era it speaks: a modern call (rounds of `input_required`)
 * or a legacy one held open while it asks; and a sign-in-only request, which a fresh listing proves.
 */
import { LegacyCall } from '../legacy-call.js';
import { callError, runModernCall } from '../modern-call.js';
import type { CallOutcome } from '../outcome.js';
import { withCallId, type Asking, type AskingRequest, type RunRequest } from './asking.js';
import type { Connections, Pooled } from './connections.js';
import type { Listings } from './listings.js';
import { wants, type RequestMeta } from './request-meta.js';
import { legacyRequest, notificationMeta } from '../requests.js';
import { followTask, needsTasksExtension, runTaskCall } from '../mcp-tasks/index.js';
import { McpxError } from '../../errors.js';

export type Send = ReturnType<typeof createSend>;

export function createSend(connections: Connections, listings: Listings, meta: RequestMeta, asking: Asking, run: RunRequest) {
  const { get, timeoutFor, onFailure, onSuccess, routes } = connections;
  const { answerers, heldRequest, cancelOnAbort, signInTimeout, modernOptions, progressToken } = asking;

  /** A sign-in-only request on the open connection: a fresh listing proves the token (a refused one signs in again). */
  const signedIn = async <R>({ server, target }: AskingRequest, callId: string): Promise<CallOutcome<R>> => {
    const tools = await listings.listTools(server, { refresh: true });
    const text = `signed in to "${server}" (${tools.length} tool${tools.length === 1 ? '' : 's'})`;
    return { status: 'complete', callId, server, tool: target, result: { content: [{ type: 'text', text }] } as R };
  };

  const sendModern = <R>(request: AskingRequest, pooled: Pooled, callId: string, signingIn: boolean): Promise<CallOutcome<R>> => {
    const { method, server, target, args, callOptions } = request;
    const { notifications } = callOptions;
    // A call that wants its notifications names itself with a progress token of ours (and asks for its log level).
    const token = wants(notifications) ? progressToken(callId) : undefined;
    const untrack = token ? meta.follow(pooled, token, notifications!) : undefined;
    return runModernCall<R>(
      modernOptions({
        server,
        pooled,
        method,
        target,
        args,
        callId,
        parent: callOptions.parent,
        signal: callOptions.signal,
        elicitTtlMs: callOptions.elicitTtlMs,
        meta: token ? notificationMeta(token, notifications!) : undefined,
        signingIn,
        onRound: callOptions.onRound,
      }),
    )
      .finally(() => untrack?.())
      .then(
        async (outcome) => {
          await onSuccess(server, pooled);
          return outcome;
        },
        (error: unknown) =>
          onFailure(
            server,
            pooled,
            callError(server, target, error, false, method),
            () => run<R>(withCallId(request, callId)),
            false,
          ),
      );
  };

  const sendLegacy = <R>(request: AskingRequest, pooled: Pooled, callId: string, signingIn: boolean): Promise<CallOutcome<R>> => {
    const { method, server, target, args, callOptions } = request;
    const call: LegacyCall<R> = new LegacyCall<R>({
      ...heldRequest(request, callId),
      ...answerers,
      heirOf: (question) => {
        const open = pooled.active.filter(
          (c) => c !== (call as LegacyCall<unknown>) && c.open && question.candidateCalls?.includes(c.callId),
        );
        // As when it came: the oldest call not yet asking, else the oldest.
        return open.find((c) => !c.asking) ?? open[0];
      },
      requestTimeoutMs: signingIn ? signInTimeout(server) : timeoutFor(server),
      mapError: (error) => callError(server, target, error, false, method),
    });
    pooled.active.push(call as LegacyCall<unknown>);
    if (callOptions.notifications) routes.set(call.progressToken, callOptions.notifications);
    const unhook = cancelOnAbort(call, request);
    // Active (closing mcpx cancels it) and routed until it is over, through a -32042's question and the retry.
    return call.run(
      (signal) => legacyRequest(pooled.connection.client, method, target, args, call.progressToken, signal) as Promise<R>,
      () => {
        pooled.active.splice(pooled.active.indexOf(call as LegacyCall<unknown>), 1);
        routes.delete(call.progressToken);
        unhook();
      },
    );
  };

  /**
   * A tool called as an MCP task, held like a legacy call in either era: the server keeps the task, this process
   * polls it, and its questions wait here (a legacy task's arrive on the connection, a modern task's through `ask`).
   */
  const sendTask = <R>(request: AskingRequest, pooled: Pooled, callId: string): Promise<CallOutcome<R>> => {
    const { server, target, args, callOptions } = request;
    const { connection } = pooled;
    const call: LegacyCall<R> = new LegacyCall<R>({
      ...heldRequest(request, callId),
      ...answerers,
      requestTimeoutMs: timeoutFor(server),
      mapError: (error) => callError(server, target, error, false, 'tools/call'),
    });
    pooled.active.push(call as LegacyCall<unknown>);
    if (callOptions.notifications) routes.set(call.progressToken, callOptions.notifications);
    const unhook = cancelOnAbort(call, request);
    const { followMcpTask } = callOptions;
    return call.run(
      (signal) => {
        const task = {
          client: connection.client,
          era: connection.era,
          server,
          tool: target,
          signal,
          declared: connection.declared,
          ask: (params: Record<string, unknown>) => call.ask(params),
          ...(callOptions.onMcpTask ? { onTask: callOptions.onMcpTask } : {}),
          onPoll: () => call.progress(),
          requestTimeoutMs: timeoutFor(server),
        };
        if (!followMcpTask) return runTaskCall({ ...task, arguments: args, progressToken: call.progressToken }) as Promise<R>;
        // The server holds the call already (another process started it): followed, never sent again.
        if (followMcpTask.era !== connection.era) throw staleTask(server, target, followMcpTask.taskId);
        return followTask(task, { taskId: followMcpTask.taskId }) as Promise<R>;
      },
      () => {
        pooled.active.splice(pooled.active.indexOf(call as LegacyCall<unknown>), 1);
        routes.delete(call.progressToken);
        unhook();
      },
    );
  };

  /** The request on the server's connection; `signingIn` when it is sent again inside a sign-in's hold. */
  const send = async <R>(request: AskingRequest, callId: string, signingIn = false): Promise<CallOutcome<R>> => {
    const pooled = await get(request.server);
    const { task, followMcpTask } = request.callOptions;
    if ((task || followMcpTask) && request.method === 'tools/call') return sendTask<R>(request, pooled, callId);
    if (pooled.connection.era === 'legacy') return sendLegacy<R>(request, pooled, callId, signingIn);
    // Undeclared, the tasks extension is asked for by a server whose tool runs only as a task: called again as one.
    return sendModern<R>(request, pooled, callId, signingIn).catch((error: unknown) => {
      if (request.method !== 'tools/call' || request.callOptions.task === false || !needsTasksExtension(error)) throw error;
      return sendTask<R>(request, pooled, callId);
    });
  };

  return { send, signedIn };
}

/** A task started in one era cannot be followed on a connection that now speaks the other. */
function staleTask(server: string, tool: string, taskId: string): McpxError {
  return new McpxError(
    'CONTINUATION_STALE',
    `server "${server}" changed protocol era since it took ${tool} as task ${taskId}, so that task cannot be followed: run the call again`,
    { data: { server, tool, taskId } },
  );
}
