/**
 * A served call's stop as its client gets it: the result, the questions asked as an `input_required` result with
 * mcpx's signed request state, or (a client that cannot be asked) the questions described as text.
 */
import { createHash } from 'node:crypto';
import { inputRequired, type CallToolResult, type ClientCapabilities } from '@modelcontextprotocol/server';
import type { ElicitRequest } from '../../broker/index.js';
import type { CallNotifications } from '../../client/index.js';
import { isMcpxError } from '../../errors.js';
import type { ServeCore, Stop } from './core.js';
import { cleanSchema, forwardableUrl, forwardedMessage, refusalOf } from './forwarded-text.js';
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
  /**
   * A task client's call of an upstream task tool: called as a task upstream, its questions before the upstream makes
   * the task asked as input_required rounds, and a task here from the round the upstream makes one (SEP-2663).
   */
  mirrorsTask?: boolean;
}

/** What one client connection's served calls share. */
export interface CallScope {
  core: ServeCore;
  seal: RequestStateSeal;
  connection: ConnectionInfo;
}

/** The request a stop is answered to: its kind, the name the client called, its arguments and its context. */
export interface ServedCall {
  kind: Kind;
  name: string;
  args: Record<string, unknown>;
  call: CallContext;
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

/** The downstream method a kind is served as (a request state is bound to it). */
export const methodOf = (kind: Kind): 'tools/call' | 'prompts/get' | 'resources/read' => METHODS[kind] ?? 'tools/call';

/** Whether every question can be put to this client as the mode it was asked in. */
export function canAsk(caps: ClientCapabilities, questions: ElicitRequest[]): boolean {
  const elicitation = caps.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return false;
  const form = elicitation.form !== undefined || elicitation.url === undefined;
  return questions.every((q) => (q.mode === 'url' ? elicitation.url !== undefined : form));
}

/** `fresh`: the stop was just reached by a call this process drives, so its new questions need no read. */
async function pendingOf({ core }: CallScope, step: Stop['step'], fresh: boolean): Promise<ElicitRequest[]> {
  if (step.status !== 'input-required') return [];
  const requests = await Promise.all(
    step.task.waitingOn.map((id) => (fresh ? core.takeOpened(id) : undefined) ?? core.broker.get(id)),
  );
  return requests.filter((r): r is ElicitRequest => r !== undefined && r.state === 'pending');
}

/**
 * Declines (as mcpx, `by: 'mcp'`) each question serve may not forward (a URL mcpx would not open, as the CLI
 * declines it; field names or choices with escapes): it is never forwarded. The others are returned. A question
 * answered meanwhile elsewhere keeps that answer.
 */
async function declineUnforwardable({ core, connection }: CallScope, pending: ElicitRequest[]): Promise<ElicitRequest[]> {
  const kept: ElicitRequest[] = [];
  for (const q of pending) {
    if (!refusalOf(q)) {
      kept.push(q);
      continue;
    }
    await core.respondHeld({ id: q.id, action: 'decline', by: 'mcp', session: connection.session }).catch((error: unknown) => {
      if (!isMcpxError(error)) throw error;
    });
  }
  return kept;
}

/** The questions put to the client as an `input_required` result, each under a key its request state maps back. */
async function askClient(
  { core, seal, connection }: CallScope,
  { kind, name, args }: ServedCall,
  { step, seq }: Stop,
  pending: ElicitRequest[],
): Promise<Served> {
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
  const task = step.task.id;
  const state: ServeState = { task, seq, asked, tool: name, session: connection.session, args: argsDigest(args) };
  // A legacy client is asked within this request (the SDK's shim), which goes on; a modern one's ends here.
  if (connection.era === 'modern') core.holdNotifications(task);
  return inputRequired({ inputRequests, requestState: await seal.mint(state, methodOf(kind)) });
}

/**
 * The stop as this client gets it: the result, or the questions (asked, or described). `next` waits for the
 * stop after one answered meanwhile; `fresh` reads the first stop's questions as just opened.
 */
export async function answerStop(
  scope: CallScope,
  served: ServedCall,
  stop: Stop,
  {
    next = (s) => scope.core.nextStop(s.step.task.id, s.seq, served.call.signal),
    fresh = false,
  }: { next?: (stop: Stop) => Promise<Stop>; fresh?: boolean } = {},
): Promise<Served> {
  const { kind, name, call } = served;
  let current = stop;
  for (let first = true; ; first = false) {
    const { step } = current;
    if (step.status === 'complete') return passResult(step.result as CallToolResult);
    if (step.status === 'failed') return failedOrThrow(kind, step.task, step.error);
    const pending = await declineUnforwardable(scope, await pendingOf(scope, step, fresh && first));
    // Answered meanwhile (the CLI, REST, the policy; or declined just now): the call has moved on or is about to.
    if (!pending.length) {
      current = await next(current);
      continue;
    }
    if (!canAsk(call.capabilities, pending)) {
      const outputSchema = kind === 'tool' && (await declaresOutputSchema(scope.core, name));
      return asKind(kind, inputRequiredResult(step.task, pending, Date.now(), { outputSchema }), name);
    }
    return askClient(scope, served, current, pending);
  }
}

const declaresOutputSchema = async (core: ServeCore, name: string): Promise<boolean> =>
  (await core.catalog()).tools.some((tool) => tool.name === name && tool.outputSchema !== undefined);
