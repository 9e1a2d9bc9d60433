/**
 * Answering without a human: rules first, then the mode. A rule's answer is checked against the question's
 * schema before it counts; an answer that would not validate is never sent, and the next rule is tried.
 */
import { McpxError } from '../errors.js';
import { checkContent } from '../elicitation/validate.js';
import type { Answer, Question } from '../types.js';
import { ruleName, type Policy, type PolicyRule } from './schema.js';

export interface FiredRule {
  index: number;
  rule: PolicyRule;
}

/** Who may answer a question the policy did not: the person only, or anyone in the pipeline's order. */
export type Audience = 'person' | 'any';

export type PolicyDecision =
  /** A rule (or the mode) answered. `fired` is set when a rule did. */
  | { kind: 'answer'; answer: Answer; fired?: FiredRule; reason: string }
  /** Error mode: the call fails, saying a question was asked. */
  | { kind: 'refuse'; error: McpxError }
  /** Nobody in the policy answered: ask, routed to this audience. `passed` lists rules that matched but could not answer. */
  | { kind: 'ask'; audience: Audience; passed: Array<{ index: number; reason: string }> };

/** Decides what the policy does with a question. Pure: the caller records what fired. */
export function evaluatePolicy(policy: Policy, question: Question, env: Record<string, string | undefined> = {}): PolicyDecision {
  if (policy.mode === 'decline')
    return { kind: 'answer', answer: { action: 'decline' }, reason: 'decline mode: every question is declined' };
  const passed: Array<{ index: number; reason: string }> = [];
  for (const [index, rule] of policy.rules.entries()) {
    if (!isSet(rule.when, env) || !matchesQuestion(rule.match, question)) continue;
    const answer = answerOf(rule, question);
    if ('problem' in answer) {
      passed.push({ index, reason: `${ruleName(rule, index)} matched but ${answer.problem}` });
      continue;
    }
    return { kind: 'answer', answer, fired: { index, rule }, reason: `${ruleName(rule, index)} matched` };
  }
  switch (policy.mode) {
    case 'auto':
      // Auto is the CI mode: unmatched is dismissed (cancel), never declined on the person's behalf.
      return { kind: 'answer', answer: { action: 'cancel' }, reason: 'auto mode: no rule matched, so the question is cancelled' };
    case 'error':
      return {
        kind: 'refuse',
        error: new McpxError(
          'ELICITATION_REFUSED',
          `${question.server} asked a question during ${question.tool} (${question.id}: "${question.message.slice(0, 200)}") and the elicitation mode is error, so the call fails. Answer it with a rule, or run with --elicit=prompt or --elicit=return.`,
          { data: { id: question.id, server: question.server, tool: question.tool, message: question.message } },
        ),
      };
    default:
      return { kind: 'ask', audience: audienceOf(policy, question), passed };
  }
}

/**
 * A server may ask that a person answer (`_meta["io.mcpx/audience"] = "user"`): honoured. A hint toward the
 * agent is ignored, because a server pushing a question past a person is the direction to resist. mcpx's own
 * questions (a write confirmation, a credential, a sign-in) are always the person's.
 */
export function audienceOf(policy: Policy, question: Question): Audience {
  if (question.asker === 'mcpx' || question.audience === 'user' || question.meta?.['io.mcpx/audience'] === 'user')
    return 'person';
  return policy.audience ?? 'any';
}

function isSet(when: string | undefined, env: Record<string, string | undefined>): boolean {
  if (when === undefined) return true;
  const eq = when.indexOf('=');
  if (eq === -1) return Boolean(env[when]);
  return env[when.slice(0, eq)] === when.slice(eq + 1);
}

/** Whether a rule's `match` (server and tool globs, field, mode) fits the question; the notify list filters with it too. */
export function matchesQuestion(match: PolicyRule['match'], question: Question): boolean {
  const { server, tool, field, mode } = match;
  if (server !== undefined && !glob(server, question.server)) return false;
  if (tool !== undefined && !glob(tool, question.tool)) return false;
  if (mode !== undefined && mode !== question.mode) return false;
  if (
    field !== undefined &&
    !(question.mode === 'form' && question.requestedSchema?.properties && field in question.requestedSchema.properties)
  )
    return false;
  return true;
}

function glob(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(value);
}

function answerOf(rule: PolicyRule, question: Question): Answer | { problem: string } {
  const action = rule.action ?? 'accept';
  if (action !== 'accept') return { action };
  if (question.mode === 'url')
    return rule.answer === undefined ? { action: 'accept' } : { problem: 'a URL question is accepted without content' };
  const field = rule.match.field;
  let content: Record<string, unknown>;
  if (rule.answer === undefined) {
    // `accept` on a boolean field (a confirmation) means yes; anything else relies on the schema's defaults.
    const property = field ? question.requestedSchema?.properties[field] : undefined;
    content = field && property?.type === 'boolean' ? { [field]: true } : {};
  } else if (typeof rule.answer === 'object' && !Array.isArray(rule.answer)) {
    content = { ...rule.answer };
  } else {
    content = { [field!]: rule.answer };
  }
  const check = checkContent(question.requestedSchema, content);
  if (!check.ok) return { problem: `its answer does not fit the question (${check.issues.map((i) => i.message).join('; ')})` };
  return { action: 'accept', content: check.content };
}
