/**
 * A served call (tools/call, prompts/get, resources/read of an upstream), from the SDK's per-connection server
 * (server.ts) or the modern HTTP fast path (fast-call.ts). A question the upstream asks reaches the client as an
 * `input_required` result with mcpx's signed request state (the SDK's legacy shim turns it into a real
 * `elicitation/create` on a legacy connection); a client that declared no elicitation gets the §5.1 text and tools.
 */
import { createHash } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  inputRequired,
  type CallToolResult,
  type ClientCapabilities,
} from '@modelcontextprotocol/server';
import type { ElicitRequest } from '../../broker/index.js';
import type { CallNotifications } from '../../client/index.js';
import { isAction } from '../../constants.js';
import { isMcpxError } from '../../errors.js';
import type { ServeCore, Stop } from './core.js';
import { stopFromStore } from './held-elsewhere.js';
import { cleanSchema, forwardableUrl, forwardedMessage, refusalOf } from './forwarded-text.js';
import type { ToolRef } from './names.js';
import { relay, wantsRelay, type RelayState } from './relay.js';
import { inputRequiredResult, passResult } from './render.js';
import type { RequestStateSeal } from './request-state.js';
import { asKind, failedOrThrow, METHODS, type Kind, type Served } from './served-kind.js';

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

/** What a served call needs of the client's request, however it arrived. */
export interface CallContext {
  /** Aborted when the client's request is gone. */
  signal: AbortSignal;
  /** What the client declared: on the request (modern) or at initialize (legacy). */
  capabilities: ClientCapabilities;
  /** A retry's request state, verified; undefined on a first call. */
  state: unknown;
  inputResponses: Record<string, unknown> | undefined;
  /** Where the call's progress and log messages go; undefined: the client wants none. */
  notifications: CallNotifications | undefined;
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

/** Whether every question can be put to this client as the mode it was asked in. */
export function canAsk(caps: ClientCapabilities, questions: ElicitRequest[]): boolean {
  const elicitation = caps.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return false;
  const form = elicitation.form !== undefined || elicitation.url === undefined;
  return questions.every((q) => (q.mode === 'url' ? elicitation.url !== undefined : form));
}

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
  const { session } = connection;

  const declaresOutputSchema = async (name: string): Promise<boolean> =>
    (await core.catalog()).tools.some((tool) => tool.name === name && tool.outputSchema !== undefined);

  /** `fresh`: the stop was just reached by a call this process drives, so its new questions need no read. */
  const pendingOf = async (step: Stop['step'], fresh: boolean): Promise<ElicitRequest[]> => {
    if (step.status !== 'input-required') return [];
    const requests = await Promise.all(
      step.task.waitingOn.map((id) => (fresh ? core.takeOpened(id) : undefined) ?? core.broker.get(id)),
    );
    return requests.filter((r): r is ElicitRequest => r !== undefined && r.state === 'pending');
  };

  /**
   * Declines (as mcpx, `by: 'mcp'`) each question serve may not forward (a URL mcpx would not open, as the CLI
   * declines it; field names or choices with escapes): it is never forwarded. The others are returned. A question answered meanwhile elsewhere keeps that answer.
   */
  const declineUnforwardable = async (pending: ElicitRequest[]): Promise<ElicitRequest[]> => {
    const kept: ElicitRequest[] = [];
    for (const q of pending) {
      if (!refusalOf(q)) {
        kept.push(q);
        continue;
      }
      await core.respondHeld({ id: q.id, action: 'decline', by: 'mcp', session }).catch((error: unknown) => {
        if (!isMcpxError(error)) throw error;
      });
    }
    return kept;
  };

  /**
   * The stop as this client gets it: the result, or the questions (asked, or described). `next` waits for the
   * stop after one answered meanwhile; `fresh` reads the first stop's questions as just opened.
   */
  const answer = async (
    { kind, name, args, call }: ServedCall,
    stop: Stop,
    {
      next = (s) => core.nextStop(s.step.task.id, s.seq, call.signal),
      fresh = false,
    }: { next?: (stop: Stop) => Promise<Stop>; fresh?: boolean } = {},
  ): Promise<Served> => {
    let current = stop;
    for (let first = true; ; first = false) {
      const { step } = current;
      if (step.status === 'complete') return passResult(step.result as CallToolResult);
      if (step.status === 'failed') return failedOrThrow(kind, step.task, step.error);
      const pending = await declineUnforwardable(await pendingOf(step, fresh && first));
      // Answered meanwhile (the CLI, REST, the policy; or declined just now): the call has moved on or is about to.
      if (!pending.length) {
        current = await next(current);
        continue;
      }
      if (!canAsk(call.capabilities, pending)) {
        const outputSchema = kind === 'tool' && (await declaresOutputSchema(name));
        return asKind(kind, inputRequiredResult(step.task, pending, Date.now(), { outputSchema }), name);
      }
      const asked: Record<string, string> = {};
      const inputRequests: Record<string, ReturnType<typeof inputRequired.elicit>> = {};
      for (const q of pending) {
        const key = q.key && !(q.key in asked) ? q.key : q.id;
        asked[key] = q.id;
        // The spec asks clients to show which server asks; through mcpx that is the upstream, not mcpx.
        const message = forwardedMessage(q.server, q.message);
        const url = forwardableUrl(q);
        inputRequests[key] =
          url && 'href' in url
            ? inputRequired.elicitUrl({ message, url: url.href })
            : inputRequired.elicit({
                mode: 'form',
                message,
                requestedSchema: cleanSchema(q.requestedSchema ?? { type: 'object', properties: {} }) as never,
              });
      }
      const state: ServeState = { task: step.task.id, seq: current.seq, asked, tool: name, session, args: argsDigest(args) };
      // A legacy client is asked within this request (the SDK's shim), which goes on; a modern one's ends here.
      if (connection.era === 'modern') core.holdNotifications(step.task.id);
      return inputRequired({ inputRequests, requestState: await seal.mint(state, methodOf(kind)) });
    }
  };

  /** A client that declared sampling or roots, in front of a modern upstream: relayed (relay.ts). */
  const relays = async (upstream: string, call: CallContext): Promise<boolean> => {
    if (!wantsRelay(call.capabilities)) return false;
    // An upstream that cannot be reached fails the usual way, on the usual path.
    return (await core.mcpx.era(upstream).catch(() => undefined)) === 'modern';
  };

  /** A call started, or (a retry) answered and followed. */
  const runOnce = async (kind: Kind, name: string, ref: ToolRef, args: Record<string, unknown>, call: CallContext) => {
    const state = call.state as ServeState | RelayState | undefined;
    const relayed = typeof state === 'object' && state !== null && (state as RelayState).kind === 'relay';
    if (relayed || (state === undefined && (await relays(ref.server, call)))) {
      try {
        const request = {
          method: methodOf(kind),
          name,
          ref,
          args,
          argsDigest: argsDigest(args),
          session,
          caps: call.capabilities,
          signal: call.signal,
          inputResponses: call.inputResponses,
          notifications: call.notifications,
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
      beforeCall();
      try {
        stop = await core.call(session, ref, args, METHODS[kind], call.notifications);
      } catch (error) {
        return failedOrThrow(kind, ref, {
          code: isMcpxError(error) ? error.code : 'CALL_FAILED',
          message: (error as Error)?.message ?? String(error),
        });
      }
      return answer({ kind, name, args, call }, stop, { fresh: true });
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
    core.notifyTo(state.task, call.notifications);
    const responses = call.inputResponses ?? {};
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
      if (movingOn) from = await core.nextStop(state.task, state.seq, call.signal);
      return answer({ kind, name, args, call }, from, { fresh: movingOn });
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
    return answer({ kind, name, args, call }, await elsewhere(), { next: elsewhere });
  };

  return {
    async run(kind, name, ref, args, call) {
      try {
        return await runOnce(kind, name, ref, args, call);
      } catch (error) {
        // This serve lost its lease while the request waited on its call (src/host/lease-lost.ts): a tool error that says so.
        if (!isMcpxError(error, 'LEASE_LOST')) throw error;
        return failedOrThrow(kind, ref, { code: error.code, message: error.message });
      }
    },
  };
}

/** The downstream method a kind is served as (a request state is bound to it). */
const methodOf = (kind: Kind): 'tools/call' | 'prompts/get' | 'resources/read' => METHODS[kind] ?? 'tools/call';

/** The request a stop is answered to: its kind, the name the client called, its arguments and its context. */
interface ServedCall {
  kind: Kind;
  name: string;
  args: Record<string, unknown>;
  call: CallContext;
}
