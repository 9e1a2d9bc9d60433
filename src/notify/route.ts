/**
 * Which sinks hear of a question: those whose `on` lists the event (default: opened only) and whose `match` fits
 * it, with the same matchers as a policy rule (server, tool, field, mode) plus who may answer it (audience).
 */
import { audienceOf, matchesQuestion, type Policy } from '../policy/index.js';
import { questionOf, type ElicitRequest } from '../broker/index.js';
import type { NotifySink } from '../config/index.js';
import type { NotifyEvent } from './payload.js';

export function sinksFor(sinks: readonly NotifySink[], event: NotifyEvent, request: ElicitRequest, policy: Policy): NotifySink[] {
  if (event === 'test') return [...sinks];
  const question = { ...questionOf(request), ...(request.audience === 'user' ? { audience: 'user' as const } : {}) };
  if (request.meta) question.meta = request.meta;
  return sinks.filter((sink) => {
    if (!(sink.on ?? ['opened']).includes(event)) return false;
    const match = sink.match;
    if (!match) return true;
    const { audience, ...rule } = match;
    if (!matchesQuestion(rule, question)) return false;
    return audience === undefined || audienceOf(policy, question) === audience;
  });
}
