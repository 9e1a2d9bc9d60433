/**
 * The stored question's conversions, written once: the handler's `Question` and the listed `Elicitation` are
 * views of the record, `openInputOf` is what a `Question` stores, and `toAnswer` is what a stored answer says.
 */
import type { Answer, Question } from '../types.js';
import type { ElicitRequest, Elicitation, OpenRequestInput, StoredAnswer } from './types.js';

/** The record as an elicitation handler (or the terminal form) sees it. */
export function questionOf(
  record: Pick<
    ElicitRequest,
    'id' | 'server' | 'tool' | 'mode' | 'message' | 'era' | 'trace' | 'requestedSchema' | 'url' | 'secret' | 'asker'
  >,
): Question {
  return {
    id: record.id,
    server: record.server,
    tool: record.tool,
    mode: record.mode,
    message: record.message,
    era: record.era,
    callId: record.trace,
    ...(record.requestedSchema ? { requestedSchema: record.requestedSchema } : {}),
    ...(record.url ? { url: record.url } : {}),
    ...(record.secret ? { secret: record.secret } : {}),
    ...(record.asker ? { asker: record.asker } : {}),
  };
}

/** The record as surfaces list it, with its time left at `now`. */
export function elicitationOf(
  record: ElicitRequest,
  now: number,
  extra: { task?: string | undefined; respondWith?: string | undefined } = {},
): Elicitation {
  const { timeLeftMs: _listed, ...stored } = record as ElicitRequest & { timeLeftMs?: number };
  return {
    ...stored,
    ...(extra.task !== undefined ? { task: extra.task } : {}),
    timeLeftMs: record.state === 'pending' ? Math.max(0, record.expiresAt - now) : 0,
    ...(extra.respondWith !== undefined ? { respondWith: extra.respondWith } : {}),
  };
}

/** What the broker stores for a question a server asked (the caller adds session and deadline). */
export function openInputOf(question: Question, audience: ElicitRequest['audience']): OpenRequestInput {
  return {
    id: question.id,
    trace: question.callId,
    server: question.server,
    tool: question.tool,
    mode: question.mode,
    message: question.message,
    requestedSchema: question.requestedSchema,
    url: question.url,
    era: question.era,
    key: question.key,
    audience,
    meta: question.meta,
    // The client knows whether the wire tied a legacy question to its call; a guess is marked and lists the calls.
    ...(question.ambiguous ? { ambiguous: true, candidateCalls: question.candidateCalls } : {}),
    ...(question.secret ? { secret: question.secret } : {}),
    ...(question.asker ? { asker: question.asker } : {}),
  };
}

/** The answer a stored answer stands for (no `by`, no content unless accepted with some). */
export function toAnswer(stored: StoredAnswer): Answer {
  if (stored.action === 'accept')
    return stored.content === undefined ? { action: 'accept' } : { action: 'accept', content: stored.content };
  return { action: stored.action };
}
