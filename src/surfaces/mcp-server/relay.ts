/**
 * A modern client that declared sampling or roots, in front of a modern upstream: a pure relay. mcpx declares to
 * the upstream exactly what this client declared (sampling, roots, elicitation), hands the client the upstream's
 * `inputRequests` (an elicitation's message naming the real originator) and wraps the upstream's `requestState`
 * in its own signed envelope (server, tool, session, a digest of the arguments, an expiry). The retry carries the
 * client's `inputResponses` back as given, so any `mcpx serve` on the same store (the same key) can take it:
 * nothing of the round is held in a process or written to the store.
 */
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/server';
import type { AskingMethod } from '../../client/requests.js';
import type { CallNotifications } from '../../client/outcome.js';
import type { ServeCore } from './core.js';
import type { ToolRef } from './names.js';
import { passResult } from './render.js';
import type { RequestStateSeal } from './request-state.js';

/** What mcpx's envelope around a relayed round carries (signed; the client only echoes it). */
export interface RelayState {
  kind: 'relay';
  server: string;
  /** The served name (a tool's or prompt's) or the resource's URI. */
  tool: string;
  session: string;
  /** sha256 of the call's arguments: a state is good only for the call it was minted for. */
  args: string;
  /** The upstream's own state, byte-exact; absent when it sent none (and then never invented). */
  upstream?: string;
}

/** The input request methods a client may declare, by the capability that declares each. */
const CAPABILITY_OF: Record<string, 'elicitation' | 'sampling' | 'roots'> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Whether a request goes by relay: its client declared something only the client itself can answer. */
export function wantsRelay(caps: ClientCapabilities): boolean {
  return caps.sampling !== undefined || caps.roots !== undefined;
}

/** What mcpx declares upstream for a relayed request: what the client declared of what can be asked, nothing more. */
function declaredUpstream(caps: ClientCapabilities): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['elicitation', 'sampling', 'roots'] as const) if (caps[key] !== undefined) out[key] = caps[key];
  return out;
}

export interface RelayRequest {
  method: AskingMethod;
  name: string;
  ref: ToolRef;
  args: Record<string, unknown>;
  argsDigest: string;
  session: string;
  caps: ClientCapabilities;
  signal: AbortSignal;
  /** A retry's answers, as the client gave them. */
  inputResponses?: Record<string, unknown> | undefined;
  /** A retry: the verified envelope. */
  state?: RelayState;
  notifications?: CallNotifications | undefined;
}

/** Sends the request (or its retry) upstream; returns the upstream's result, or its round of questions under mcpx's envelope. */
export async function relay(core: ServeCore, seal: RequestStateSeal, request: RelayRequest): Promise<Record<string, unknown>> {
  const { ref, state, inputResponses } = request;
  if (
    state &&
    (state.server !== ref.server ||
      state.tool !== request.name ||
      state.args !== request.argsDigest ||
      state.session !== request.session)
  ) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
      reason: 'request_state_mismatch',
      detail: 'the requestState was minted for another call, other arguments or another session',
    });
  }
  const result = await core.mcpx.relay(ref.server, request.method, ref.tool, request.args, {
    capabilities: declaredUpstream(request.caps),
    ...(inputResponses !== undefined ? { inputResponses } : {}),
    ...(state?.upstream !== undefined ? { requestState: state.upstream } : {}),
    signal: request.signal,
    ...(request.notifications ? { notifications: request.notifications } : {}),
  });
  if (result.resultType !== 'input_required') return passResult(result as CallToolResult) as Record<string, unknown>;
  const inputRequests: Record<string, unknown> = {};
  const undeclared = new Set<string>();
  for (const [key, entry] of Object.entries(
    (result.inputRequests ?? {}) as Record<string, { method?: string; params?: Record<string, unknown> }>,
  )) {
    const capability = CAPABILITY_OF[entry?.method ?? ''];
    // Never a request type the client did not declare (the upstream was told what it declared).
    if (!capability || request.caps[capability] === undefined) {
      undeclared.add(capability ?? String(entry?.method));
      continue;
    }
    inputRequests[key] =
      entry.method === 'elicitation/create'
        ? {
            ...entry,
            params: { ...entry.params, message: `${ref.server} (via mcpx) asks: ${String(entry.params?.message ?? '')}` },
          }
        : entry;
  }
  if (undeclared.size) {
    throw new ProtocolError(
      -32021 as ProtocolErrorCode,
      `${ref.server} asked for ${[...undeclared].join(', ')}, which this client did not declare`,
      {
        requiredCapabilities: Object.fromEntries([...undeclared].map((c) => [c, {}])),
      },
    );
  }
  const envelope: RelayState = {
    kind: 'relay',
    server: ref.server,
    tool: request.name,
    session: request.session,
    args: request.argsDigest,
  };
  if (typeof result.requestState === 'string') envelope.upstream = result.requestState;
  return { resultType: 'input_required', inputRequests, requestState: await seal.mintRelay(envelope, request.method) };
}
