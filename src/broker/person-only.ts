/**
 * A question mcpx asks on its own behalf (`asker: 'mcpx'`: a write confirmation, a credential, a sign-in) is a
 * person's. The broker refuses an agent's or a script's accept whatever the surface it comes through, so no surface
 * can forget the rule; the question stays pending for the person. Decline and cancel stay open to anyone: they run
 * nothing, and an agent that cannot know declines.
 */
import { McpxError } from '../errors.js';
import { eventFor } from './records.js';
import type { AnsweredBy, AnswererKind, BrokerEvent, ElicitRequest, RespondInput } from './types.js';

const KIND_OF_SURFACE: Partial<Record<AnsweredBy, AnswererKind>> = {
  agent: 'agent',
  script: 'script',
  policy: 'policy',
  expiry: 'policy',
};

/** Who answers: as the surface said, else what its `by` stands for (every other surface is a person's). */
export function answererOf(input: Pick<RespondInput, 'answerer' | 'by'>): AnswererKind {
  return input.answerer ?? KIND_OF_SURFACE[input.by] ?? 'person';
}

/** The refusal (and its audit event) of an answer only a person may give; undefined when the answer may stand. */
export function personOnlyRefusal(
  request: ElicitRequest,
  input: RespondInput,
  now: number,
): { error: McpxError; event: BrokerEvent } | undefined {
  const answerer = answererOf(input);
  if (request.asker !== 'mcpx' || input.action !== 'accept' || (answerer !== 'agent' && answerer !== 'script')) return undefined;
  const who = answerer === 'agent' ? 'an agent' : 'a script';
  const reason = `mcpx asked this on its own behalf, so only a person may accept it; ${who}'s accept is refused`;
  const error = new McpxError(
    'PERSON_REQUIRED',
    `${request.id} (${request.server}.${request.tool}: "${request.message.slice(0, 200)}"): ${reason}. It stays pending for ` +
      `the person, who answers with mcpx elicit answer ${request.id} (or REST, or the web inbox) before ` +
      `${new Date(request.expiresAt).toISOString()}; ${who} that cannot know declines.`,
    { data: { id: request.id, answerer, by: input.by } },
  );
  const event = eventFor('elicit.refused', request, now, {
    action: input.action,
    by: input.by,
    data: { answerer, reason, ...(input.user !== undefined ? { user: input.user } : {}), answeringPid: input.pid ?? process.pid },
  });
  return { error, event };
}
