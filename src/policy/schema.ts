/**
 * The `elicit` policy block, validated with zod. Errors name the rule (its index, and its `because` when it has
 * one) and the field, and say what was expected.
 */
import * as z from 'zod';
import { McpxError, type Issue } from '../errors.js';
import { ACTIONS } from '../constants.js';

/** A question's time to live: milliseconds, or a duration like "120s", "5m", "1h" (as ms). */
export const ttlSchema = z.union([
  z.number().int().positive(),
  z
    .string()
    .regex(/^\d+(ms|s|m|h)$/)
    .transform((text) => {
      const [, amount, unit] = /^(\d+)(ms|s|m|h)$/.exec(text)!;
      return Number(amount) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
    }),
]);

export const POLICY_MODES = ['ask', 'auto', 'decline', 'error'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];

const matchSchema = z.strictObject({
  server: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  field: z.string().min(1).optional(),
  mode: z.enum(['form', 'url']).optional(),
});

const ruleSchema = z.strictObject({
  match: matchSchema,
  /** Content for an accept: an object of field values, or one value for the field `match.field` names. */
  answer: z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.record(z.string(), z.unknown())]).optional(),
  action: z.enum(ACTIONS).optional(),
  /** Why the rule exists; recorded with it in the audit log. */
  because: z.string().optional(),
  /** Only while this environment variable is set (`NAME`) or has this value (`NAME=value`). */
  when: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*(=.*)?$/)
    .optional(),
});

const policySchema = z.strictObject({
  mode: z.enum(POLICY_MODES).default('ask'),
  ttl: ttlSchema.optional(),
  /** Who a question goes to when the server does not say: the person only, or anyone in order (default). */
  audience: z.enum(['person', 'any']).optional(),
  rules: z.array(ruleSchema).default([]),
  /** Questions one call may ask before it is stopped (default 50). */
  maxQuestionsPerCall: z.number().int().positive().optional(),
  /** Questions one script run may open before it is stopped (default 200). */
  maxQuestionsPerRun: z.number().int().positive().optional(),
});

export type PolicyRule = z.infer<typeof ruleSchema>;
export interface Policy {
  mode: PolicyMode;
  /** The question's time to live, when the policy sets one (ms). */
  ttlMs?: number;
  audience?: 'person' | 'any' | undefined;
  rules: PolicyRule[];
  maxQuestionsPerCall?: number | undefined;
  maxQuestionsPerRun?: number | undefined;
}

const EXPECTED: Record<string, string> = {
  mode: '"ask", "auto", "decline" or "error"',
  ttl: 'a positive number of milliseconds, or a duration like "120s", "5m"',
  audience: '"person" or "any"',
  rules: 'an array of rules',
  match: 'an object with any of server, tool, field, mode',
  'match.server': 'a server name (a * matches any run of characters)',
  'match.tool': 'a tool name (a * matches any run of characters)',
  'match.field': 'the name of a field of the question',
  'match.mode': '"form" or "url"',
  answer: 'an object of field values, or one value for the field match.field names',
  action: '"accept", "decline" or "cancel"',
  because: 'a string saying why the rule exists',
  when: 'an environment variable name, or NAME=value',
  maxQuestionsPerCall: 'a positive whole number of questions (default 50)',
  maxQuestionsPerRun: 'a positive whole number of questions (default 200)',
};

/** Parses and checks the policy block (the `elicit` object of a config). Throws POLICY_INVALID with issues. */
export function parsePolicy(input: unknown = {}): Policy {
  const parsed = policySchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => toIssue(issue.path, issue.message, input));
    throw invalid(issues);
  }
  const { ttl, ...rest } = parsed.data;
  const policy: Policy = { ...rest, ...(ttl !== undefined ? { ttlMs: ttl } : {}) };
  const issues = policy.rules.flatMap((rule, index) => ruleIssues(rule, index, policy.mode));
  if (issues.length) throw invalid(issues);
  return policy;
}

/** The same policy under another mode (the CLI's --elicit flag), checked again: auto refuses empty matches. */
export function withMode(policy: Policy, mode: PolicyMode): Policy {
  const next = { ...policy, mode };
  const issues = next.rules.flatMap((rule, index) => ruleIssues(rule, index, mode));
  if (issues.length) throw invalid(issues);
  return next;
}

/** How a rule is named in messages: its index, and its reason when it gives one. */
export function ruleName(rule: PolicyRule | undefined, index: number): string {
  return rule?.because ? `rules[${index}] ("${rule.because}")` : `rules[${index}]`;
}

function ruleIssues(rule: PolicyRule, index: number, mode: PolicyMode): Issue[] {
  const name = ruleName(rule, index);
  const issue = (field: string, expected: string, message: string): Issue => ({
    field: `rules[${index}].${field}`,
    expected,
    message: `${name}: ${message}`,
  });
  const issues: Issue[] = [];
  const emptyMatch = Object.values(rule.match).every((v) => v === undefined);
  if (emptyMatch && mode === 'auto') {
    issues.push(
      issue(
        'match',
        'at least one of server, tool, field, mode',
        'auto mode refuses a rule with an empty match: it would answer every question without anyone asking',
      ),
    );
  }
  if (rule.answer === undefined && rule.action === undefined)
    issues.push(issue('answer', 'answer or action', 'a rule must answer (answer) or act (action)'));
  if (rule.answer !== undefined && (rule.action === 'decline' || rule.action === 'cancel')) {
    issues.push(issue('answer', 'no answer with decline or cancel', `an answer goes only with accept, not ${rule.action}`));
  }
  const single = rule.answer !== undefined && (typeof rule.answer !== 'object' || Array.isArray(rule.answer));
  if (single && rule.match.field === undefined)
    issues.push(
      issue(
        'match.field',
        'the field the single answer fills',
        'the answer is a single value, so match.field must name the field it fills',
      ),
    );
  if (rule.answer !== undefined && rule.match.mode === 'url')
    issues.push(issue('answer', 'no answer for a URL question', 'a URL question is accepted without content'));
  return issues;
}

function toIssue(path: PropertyKey[], message: string, input: unknown): Issue {
  const parts = path.map(String);
  const ruleIndex = parts[0] === 'rules' && parts[1] !== undefined ? Number(parts[1]) : undefined;
  if (ruleIndex !== undefined && Number.isInteger(ruleIndex)) {
    const rule = ((input as { rules?: unknown[] })?.rules?.[ruleIndex] ?? undefined) as PolicyRule | undefined;
    const within = parts.slice(2).join('.');
    const expected = EXPECTED[within] ?? EXPECTED[parts[2] ?? ''] ?? message;
    const field = `rules[${ruleIndex}]${within ? `.${within}` : ''}`;
    return {
      field,
      expected,
      message: `${ruleName(typeof rule === 'object' && rule ? rule : undefined, ruleIndex)}: ${within || 'the rule'}: ${message} (expected ${expected})`,
    };
  }
  const field = parts.join('.');
  const expected = EXPECTED[field] ?? message;
  return { field, expected, message: `${field || 'the policy'}: ${message} (expected ${expected})` };
}

function invalid(issues: Issue[]): McpxError {
  return new McpxError('POLICY_INVALID', `the elicitation policy is invalid: ${issues.map((i) => i.message).join('; ')}`, {
    data: { issues },
  });
}
