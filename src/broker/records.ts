/** The broker's stored records: a new question, its events, the checks on an answer, and the errors it raises. */
import { McpxError } from '../errors.js';
import { isAction } from '../constants.js';
import { checkContent } from '../elicitation/validate.js';
import type { BrokerEvent, ElicitRequest, OpenRequestInput, RequestState, RespondInput, StoredAnswer } from './types.js';

export function checkAnswerContent(request: ElicitRequest, input: RespondInput): Record<string, unknown> | undefined {
  const invalid = (message: string, field = 'content'): McpxError =>
    new McpxError('ANSWER_INVALID', `${message}; question ${request.id} is still pending`, {
      data: { id: request.id, issues: [{ field, expected: message, message }] },
    });
  if (input.action !== 'accept') {
    if (input.content !== undefined) throw invalid(`content goes only with accept, not ${input.action}`);
    return undefined;
  }
  if (request.mode === 'url') {
    if (input.content !== undefined) throw invalid('a URL question is accepted without content');
    return undefined;
  }
  const check = checkContent(request.requestedSchema, input.content ?? {});
  if (!check.ok) {
    const detail = check.issues.map((i) => i.message).join('; ');
    throw new McpxError(
      'ANSWER_INVALID',
      `the answer does not match the question: ${detail}. Question ${request.id} is still pending; answer again.`,
      { data: { id: request.id, issues: check.issues } },
    );
  }
  return check.content;
}

export function checkTtl(ttl: number): number {
  if (!Number.isFinite(ttl) || ttl <= 0)
    throw new McpxError('CONFIG_INVALID', `a question's time to live must be a positive number of milliseconds, got ${ttl}`, {
      data: { ttlMs: ttl },
    });
  return ttl;
}

/** Names the question's session and the command that acts in it, so a pasted command that missed it can be fixed. */
export function forbidden(id: string, session: string): McpxError {
  return new McpxError(
    'ELICITATION_FORBIDDEN',
    `question ${id} belongs to session ${session}, not this one: act in that session with MCPX_SESSION_ID=${session} mcpx elicit answer|decline|cancel ${id} (with the same --config), or as an operator with --all (mcpx elicit answer|decline|cancel --all ${id}; REST: ?all=1)`,
    { data: { id, session } },
  );
}

export function notFound(id: string): McpxError {
  return new McpxError('ELICITATION_NOT_FOUND', `no question ${id}; list the waiting ones with \`mcpx elicit list\``, {
    data: { id },
  });
}

export function abandoned(request: ElicitRequest): McpxError {
  return new McpxError(
    'ELICITATION_ABANDONED',
    `question ${request.id} was abandoned (${request.abandonedReason ?? 'the call that asked is gone'}); the call can no longer use an answer`,
    {
      data: { id: request.id, reason: request.abandonedReason },
    },
  );
}

const OPTIONAL_REQUEST_FIELDS = [
  'parent',
  'requestedSchema',
  'url',
  'key',
  'task',
  'audience',
  'abandonedReason',
  'meta',
  'ambiguous',
  'candidateCalls',
  'secret',
  'asker',
] as const;

/** The stored question: the fields it has, each set once in a fixed order (no undefined fields, one object shape). */
export function newRequest(
  input: OpenRequestInput,
  filled: Pick<ElicitRequest, 'id' | 'session' | 'sessionSource' | 'createdAt' | 'expiresAt'>,
): ElicitRequest {
  const request: ElicitRequest = {
    id: filled.id,
    trace: input.trace,
    session: filled.session,
    sessionSource: filled.sessionSource,
    server: input.server,
    tool: input.tool,
    mode: input.mode,
    message: input.message,
    era: input.era,
    createdAt: filled.createdAt,
    expiresAt: filled.expiresAt,
    state: 'pending',
  };
  for (const field of OPTIONAL_REQUEST_FIELDS)
    if (input[field] !== undefined) (request as unknown as Record<string, unknown>)[field] = input[field];
  return request;
}

/** An event about a question, with the question's identity and whatever the kind adds. */
export function eventFor(
  kind: BrokerEvent['kind'],
  request: ElicitRequest,
  at: number,
  extra: Partial<BrokerEvent>,
): BrokerEvent {
  const event: BrokerEvent = {
    kind,
    at,
    pid: process.pid,
    elicit: request.id,
    trace: request.trace,
    session: request.session,
    server: request.server,
    tool: request.tool,
  };
  if (request.parent !== undefined) event.parent = request.parent;
  return Object.assign(event, extra);
}

/** A copy without undefined fields (stored records stay as JSON would write them). */
export function compact<T>(value: object): T {
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) out[key] = field;
  }
  return out as T;
}

/** A question's state from its record and its answer, at `now`. */
export function stateOf(request: ElicitRequest, answer: StoredAnswer | undefined, now: number): RequestState {
  if (request.state === 'abandoned' && (!answer || answer.by === 'expiry')) return 'abandoned';
  if (answer) return answer.by === 'expiry' ? 'expired' : 'answered';
  return now >= request.expiresAt ? 'expired' : 'pending';
}

/** Refuses an answer to a question already answered: expired (cancel by expiry) or answered by someone. */
export function refuseAnswered(request: ElicitRequest, winner: StoredAnswer): never {
  if (winner.by === 'expiry') {
    throw new McpxError(
      'ELICITATION_EXPIRED',
      `question ${request.id} expired at ${new Date(request.expiresAt).toISOString()} and was answered cancel on the caller's behalf`,
      {
        data: { id: request.id, expiresAt: request.expiresAt, answer: winner },
      },
    );
  }
  throw new McpxError(
    'ELICITATION_ALREADY_ANSWERED',
    `question ${request.id} was already answered (${winner.action} by ${winner.by}); the first answer wins`,
    {
      data: { id: request.id, answer: winner },
    },
  );
}

/** Refuses an answer whose action is not one of the three, or that claims to be the broker's own expiry cancel. */
export function checkRespondInput(input: RespondInput): void {
  if (!isAction(input.action)) {
    throw new McpxError('ANSWER_INVALID', `action must be accept, decline or cancel, got ${JSON.stringify(input.action)}`, {
      data: { id: input.id, issues: [{ field: 'action', expected: 'accept | decline | cancel', message: 'unknown action' }] },
    });
  }
  if (input.by === 'expiry')
    throw new McpxError('ANSWER_INVALID', "by: 'expiry' is reserved for the broker's own cancel at the deadline", {
      data: { id: input.id, issues: [] },
    });
}

/** The answer a respond claims, and the elicit.answered event that goes with it. */
export function answerOf(
  request: ElicitRequest,
  input: RespondInput,
  now: number,
  content: Record<string, unknown> | undefined,
  answering: string | undefined,
): { answer: StoredAnswer; event: BrokerEvent } {
  const answer: StoredAnswer = { id: request.id, action: input.action, by: input.by, at: now, pid: input.pid ?? process.pid };
  if (input.user !== undefined) answer.user = input.user;
  if (content !== undefined) answer.content = content;
  if (answering !== undefined) answer.session = answering;
  const event = eventFor('elicit.answered', request, now, {
    action: answer.action,
    by: answer.by,
    answeredAfterMs: now - request.createdAt,
  });
  if (answering !== undefined && answering !== request.session) event.data = { answeringSession: answering };
  // §6b: the event names the process that answered; a relaying process (the daemon) is named beside it.
  if (answer.pid !== process.pid) {
    event.pid = answer.pid;
    event.data = { ...event.data, relayedBy: process.pid };
  }
  if (answer.user !== undefined) event.data = { ...event.data, user: answer.user };
  return { answer, event };
}
