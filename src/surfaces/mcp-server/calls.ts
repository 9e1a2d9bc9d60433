/**
 * A served call (tools/call, prompts/get, resources/read of an upstream), from the SDK's per-connection server
 * (server.ts) or the modern HTTP fast path (fast-call.ts): started, relayed, or (a retry) answered and followed.
 * How a stop reaches the client (questions as `input_required`, or the §5.1 text) is served-stop.ts.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isAction } from '../../constants.js';
import { isMcpxError } from '../../errors.js';
import type { ServeCore, Stop } from './core.js';
import { stopFromStore } from './held-elsewhere.js';
import { declaresTasks } from './tasks/extension.js';
import { ownTasksOf } from './tasks/own.js';
import type { ToolRef } from './names.js';
import { relay, wantsRelay, type RelayState } from './relay.js';
import { failedOrThrow, METHODS, type Kind, type Served } from './served-kind.js';
import type { RequestStateSeal } from './request-state.js';
import {
  answerStop,
  argsDigest,
  methodOf,
  type CallContext,
  type CallScope,
  type ConnectionInfo,
  type ServedCall,
  type ServeState,
} from './served-stop.js';

export { argsDigest, type CallContext, type ConnectionInfo, type ServeState } from './served-stop.js';

export interface Calls {
  run(kind: Kind, name: string, ref: ToolRef, args: Record<string, unknown>, call: CallContext): Promise<Served>;
}

/** `beforeCall`: runs as a call starts upstream (not for a relayed call or a retry). */
export function createCalls(
  core: ServeCore,
  seal: RequestStateSeal,
  connection: ConnectionInfo,
  beforeCall: () => void = () => undefined,
): Calls {
  const scope: CallScope = { core, seal, connection };
  return {
    async run(kind, name, ref, args, call) {
      try {
        return await runOnce(scope, beforeCall, kind, name, ref, args, call);
      } catch (error) {
        // This serve lost its lease while the request waited on its call (src/host/lease-lost.ts): a tool error that says so.
        if (!isMcpxError(error, 'LEASE_LOST')) throw error;
        return failedOrThrow(kind, ref, { code: error.code, message: error.message });
      }
    },
  };
}

/** A call started, relayed, or (a retry) answered and followed. */
async function runOnce(
  scope: CallScope,
  beforeCall: () => void,
  kind: Kind,
  name: string,
  ref: ToolRef,
  args: Record<string, unknown>,
  call: CallContext,
): Promise<Served> {
  const state = call.state as ServeState | RelayState | undefined;
  const relayed = typeof state === 'object' && state !== null && (state as RelayState).kind === 'relay';
  // Before the relay: a task client's upstream questions wait in the broker for tasks/get (tasks/handlers.ts).
  if (state === undefined && call.mirrorsTask) {
    beforeCall();
    const { core, connection } = scope;
    const first = core.call(connection.session, ref, args, { task: true, ...notificationsOf(call) });
    return ownTasksOf(core).answerOrTask(connection.session, ref, first, (stop) =>
      answerStop(scope, { kind, name, args, call }, stop, { fresh: true }),
    );
  }
  if (relayed || (state === undefined && (await relays(scope, ref.server, call))))
    return runRelayed(scope, { kind, name, args, call }, ref, relayed ? (state as RelayState) : undefined);
  if (state === undefined || typeof state !== 'object') {
    let stop: Stop;
    beforeCall();
    try {
      stop = await scope.core.call(scope.connection.session, ref, args, {
        ...(METHODS[kind] ? { method: METHODS[kind] } : {}),
        ...notificationsOf(call),
        // A modern client that did not declare tasks gets the upstream's -32021, as the spec asks of the server.
        ...(scope.connection.era === 'modern' && !declaresTasks(call.capabilities) ? { task: false as const } : {}),
      });
    } catch (error) {
      return failedOrThrow(kind, ref, {
        code: isMcpxError(error) ? error.code : 'CALL_FAILED',
        message: (error as Error)?.message ?? String(error),
        ...(isMcpxError(error) && error.data ? { data: error.data } : {}),
      });
    }
    return answerStop(scope, { kind, name, args, call }, stop, { fresh: true });
  }
  return retry(scope, { kind, name, args, call }, state as ServeState, ref);
}

const notificationsOf = (call: CallContext) => (call.notifications ? { notifications: call.notifications } : {});

/** A client that declared sampling or roots, in front of a modern upstream: relayed (relay.ts). */
async function relays({ core }: CallScope, upstream: string, call: CallContext): Promise<boolean> {
  if (!wantsRelay(call.capabilities)) return false;
  // An upstream that cannot be reached fails the usual way, on the usual path.
  return (await core.mcpx.era(upstream).catch(() => undefined)) === 'modern';
}

/** `state`: a relayed call's retry carries the relay's own request state. */
async function runRelayed(
  { core, seal, connection }: CallScope,
  { kind, name, args, call }: ServedCall,
  ref: ToolRef,
  state: RelayState | undefined,
): Promise<Served> {
  try {
    const request = {
      method: methodOf(kind),
      name,
      ref,
      args,
      argsDigest: argsDigest(args),
      session: connection.session,
      caps: call.capabilities,
      signal: call.signal,
      inputResponses: call.inputResponses,
      notifications: call.notifications,
    } as const;
    return await relay(core, seal, state ? { ...request, state } : request);
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    return failedOrThrow(kind, ref, {
      code: isMcpxError(error) ? error.code : 'CALL_FAILED',
      message: (error as Error)?.message ?? String(error),
      ...(isMcpxError(error) && error.data ? { data: error.data } : {}),
    });
  }
}

/** A retry: the client's answers to the questions its request state names, then the call followed from there. */
async function retry(scope: CallScope, served: ServedCall, state: ServeState, ref: ToolRef): Promise<Served> {
  const { core, connection } = scope;
  const { name, args, call } = served;
  // The state must be ours (verified already), for this very call and session.
  if (!('task' in state) || state.tool !== name || state.args !== argsDigest(args) || state.session !== connection.session) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
      reason: 'request_state_mismatch',
      detail: 'the requestState was minted for another call, other arguments or another session',
    });
  }
  // From now on the call's notifications go to this request, before an answer lets the call go on. A legacy
  // client's "retry" is the SDK re-entering its still open request: the same request, so nothing changes.
  core.notifyTo(state.task, call.notifications);
  const answeredHere = await takeResponses(scope, state, call.inputResponses ?? {});
  const latest = core.latestStop(state.task);
  if (latest) {
    let from = latest.seq > state.seq ? latest : { seq: state.seq, step: latest.step };
    // Every question of that stop was just answered here: the call is moving on, so wait for its next stop
    // instead of reading the questions back from the store.
    const movingOn =
      from.seq === state.seq &&
      from.step.status === 'input-required' &&
      from.step.task.waitingOn.every((id) => answeredHere.has(id));
    if (movingOn && call.mirrorsTask)
      return ownTasksOf(core).answerOrTask(connection.session, ref, core.nextStop(state.task, state.seq), (stop) =>
        answerStop(scope, served, stop, { fresh: true }),
      );
    if (movingOn) from = await core.nextStop(state.task, state.seq, call.signal);
    return answerStop(scope, served, from, { fresh: movingOn });
  }
  // Another serve on the store holds the call (or held it and stopped): the store says where it stands.
  const elsewhere = async (): Promise<Stop> => {
    const found = await stopFromStore(core, state.task, call.signal);
    if (found) return found;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
      reason: 'request_state_unknown_call',
      detail: 'no mcpx serve on this store holds that call any more; run it again',
    });
  };
  return answerStop(scope, served, await elsewhere(), { next: elsewhere });
}

/** Gives the broker each answer the retry carries; returns the ids of the questions answered here. */
async function takeResponses(
  { core, connection }: CallScope,
  state: ServeState,
  responses: Record<string, unknown>,
): Promise<Set<string>> {
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
        session: connection.session,
      });
      answeredHere.add(id);
      core.takeOpened(id);
    } catch (error) {
      // Invalid content: the question stays pending and is asked again. Answered or expired elsewhere: that answer stands.
      if (!isMcpxError(error)) throw error;
    }
  }
  return answeredHere;
}
