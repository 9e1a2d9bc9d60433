/**
 * A modern client that declared sampling or roots, in front of a modern upstream: a pure relay. mcpx declares to the
 * upstream exactly what this client declared, hands the client the upstream's `inputRequests` and wraps the
 * upstream's `requestState` in its own signed envelope (server, tool, session, arguments' digest, expiry), so any
 * `mcpx serve` on the same store can take the retry: nothing of the round is held in a process or in the store.
 */
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/server';
import type { AskingMethod } from '../../client/index.js';
import type { CallNotifications } from '../../client/index.js';
import { McpxError } from '../../errors.js';
import type { ServeCore } from './core.js';
import { cleanSchema, forwardableUrl, forwardedMessage, refusalOf } from './forwarded-text.js';
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

/** Rounds in a row of URLs declined here before the call is given up as failed (an upstream that only asks that). */
const MAX_DECLINED_ROUNDS = 3;

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
  const { ref, state } = request;
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
  let inputResponses = request.inputResponses;
  let upstreamState = state?.upstream;
  for (let declined = 0; ; declined++) {
    const result = await core.mcpx.relay(ref.server, request.method, ref.tool, request.args, {
      capabilities: declaredUpstream(request.caps),
      ...(inputResponses !== undefined ? { inputResponses } : {}),
      ...(upstreamState !== undefined ? { requestState: upstreamState } : {}),
      signal: request.signal,
      ...(request.notifications ? { notifications: request.notifications } : {}),
    });
    if (result.resultType !== 'input_required') return passResult(result as CallToolResult) as Record<string, unknown>;
    const { inputRequests, refused } = forwardedRequests(ref.server, request.caps, result.inputRequests);
    if (!refused.length)
      return {
        resultType: 'input_required',
        inputRequests,
        requestState: await seal.mintRelay(envelopeOf(request, result.requestState), request.method),
      };
    // A question serve may not forward (a URL mcpx would not open) is declined here; the upstream asks again for what it still needs
    // (the other questions of the round go unanswered, which the spec has it ask again).
    if (declined >= MAX_DECLINED_ROUNDS)
      throw new McpxError('CALL_FAILED', `${ref.server} kept asking what mcpx serve does not forward (${refused[0]!.reason})`, {
        data: { server: ref.server },
      });
    inputResponses = Object.fromEntries(refused.map(({ key }) => [key, { action: 'decline' }]));
    upstreamState = typeof result.requestState === 'string' ? result.requestState : undefined;
  }
}

/** mcpx's envelope around the upstream's state (absent when it sent none, and then never invented). */
function envelopeOf(request: RelayRequest, upstreamState: unknown): RelayState {
  const envelope: RelayState = {
    kind: 'relay',
    server: request.ref.server,
    tool: request.name,
    session: request.session,
    args: request.argsDigest,
  };
  if (typeof upstreamState === 'string') envelope.upstream = upstreamState;
  return envelope;
}

/**
 * A round's requests as the client gets them: an elicitation's text cleaned and naming the real originator; one
 * serve may not forward (a URL mcpx would not open: forwarded-text.ts) set apart, to be declined. Never a request type the client did not
 * declare (the upstream was told what it declared): such a round is the -32021 error.
 */
function forwardedRequests(
  server: string,
  caps: ClientCapabilities,
  requests: unknown,
): { inputRequests: Record<string, unknown>; refused: Array<{ key: string; reason: string }> } {
  const inputRequests: Record<string, unknown> = {};
  const refused: Array<{ key: string; reason: string }> = [];
  const undeclared = new Set<string>();
  for (const [key, entry] of Object.entries(
    (requests ?? {}) as Record<string, { method?: string; params?: Record<string, unknown> }>,
  )) {
    const capability = CAPABILITY_OF[entry?.method ?? ''];
    if (!capability || caps[capability] === undefined) {
      undeclared.add(capability ?? String(entry?.method));
      continue;
    }
    if (entry.method !== 'elicitation/create') {
      inputRequests[key] = entry;
      continue;
    }
    const params = entry.params ?? {};
    const reason = refusalOf(params);
    if (reason) {
      refused.push({ key, reason });
      continue;
    }
    const url = forwardableUrl(params);
    inputRequests[key] = {
      ...entry,
      params: {
        ...params,
        message: forwardedMessage(server, params.message ?? ''),
        ...(params.requestedSchema ? { requestedSchema: cleanSchema(params.requestedSchema) } : {}),
        ...(url && 'href' in url ? { url: url.href } : {}),
      },
    };
  }
  if (undeclared.size) {
    throw new ProtocolError(
      -32021 as ProtocolErrorCode,
      `${server} asked for ${[...undeclared].join(', ')}, which this client did not declare`,
      {
        requiredCapabilities: Object.fromEntries([...undeclared].map((c) => [c, {}])),
      },
    );
  }
  return { inputRequests, refused };
}
