import { describe, expect, it } from 'vitest';
import { isMcpxError } from '../../src/errors.js';
import { evaluatePolicy, parsePolicy, withMode } from '../../src/policy/index.js';
import type { Question } from '../../src/types.js';

const q = (over: Partial<Question> = {}): Question => ({
  id: 'elc-0000000000000001',
  server: 'github',
  tool: 'create_issue',
  mode: 'form',
  message: 'Which user?',
  era: 'legacy',
  callId: 'cal-0000000000000001',
  requestedSchema: { type: 'object', properties: { username: { type: 'string', minLength: 2 }, confirm: { type: 'boolean' } } },
  ...over,
});

function policyError(input: unknown): { message: string; issues: Array<{ field: string; expected: string }> } {
  try {
    parsePolicy(input);
  } catch (error) {
    if (isMcpxError(error, 'POLICY_INVALID'))
      return { message: error.message, issues: error.data?.issues as Array<{ field: string; expected: string }> };
    throw error;
  }
  throw new Error('expected POLICY_INVALID');
}

describe('parsePolicy', () => {
  it('reads the design record example, with the TTL as a duration', () => {
    const policy = parsePolicy({
      mode: 'ask',
      ttl: '120s',
      rules: [
        { match: { server: 'github', field: 'username' }, answer: 'octocat' },
        { match: { mode: 'url' }, action: 'decline', because: 'no browser in CI' },
        { match: { field: 'confirm' }, action: 'accept', when: 'MCPX_ASSUME_YES=1' },
      ],
    });
    expect(policy.mode).toBe('ask');
    expect(policy.ttlMs).toBe(120_000);
    expect(policy.rules).toHaveLength(3);
  });

  it('defaults to ask with no rules', () => {
    expect(parsePolicy(undefined)).toEqual({ mode: 'ask', rules: [] });
  });

  it('names the rule and the field of a bad value', () => {
    const { message, issues } = policyError({
      rules: [
        { match: { server: 'a' }, action: 'decline' },
        { match: { mode: 'email' }, action: 'decline', because: 'mail' },
      ],
    });
    expect(issues[0]).toMatchObject({ field: 'rules[1].match.mode', expected: '"form" or "url"' });
    expect(message).toContain('rules[1] ("mail")');
  });

  it('names an unknown key and a bad mode', () => {
    expect(policyError({ mode: 'sometimes' }).issues[0]).toMatchObject({
      field: 'mode',
      expected: '"ask", "auto", "decline" or "error"',
    });
    expect(policyError({ rules: [{ match: { tool: 'x' }, action: 'cancel', extra: 1 }] }).issues[0]?.field).toBe('rules[0]');
  });

  it('refuses a rule with an empty match in auto mode, naming the rule', () => {
    const { message, issues } = policyError({
      mode: 'auto',
      rules: [
        { match: { server: 'x' }, action: 'cancel' },
        { match: {}, action: 'accept', because: 'yes to everything' },
      ],
    });
    expect(issues).toEqual([expect.objectContaining({ field: 'rules[1].match' })]);
    expect(message).toContain('rules[1] ("yes to everything")');
    expect(message).toContain('auto mode refuses a rule with an empty match');
  });

  it('refuses switching to auto when a rule matches everything', () => {
    const policy = parsePolicy({ mode: 'ask', rules: [{ match: {}, action: 'decline' }] });
    expect(() => withMode(policy, 'auto')).toThrow(expect.objectContaining({ code: 'POLICY_INVALID' }));
    expect(withMode(policy, 'error').mode).toBe('error');
  });

  it('refuses a rule that neither answers nor acts, or answers a decline, or fills no field', () => {
    expect(policyError({ rules: [{ match: { tool: 'x' } }] }).message).toContain('must answer (answer) or act (action)');
    expect(policyError({ rules: [{ match: { field: 'x' }, answer: 'y', action: 'decline' }] }).issues[0]?.field).toBe(
      'rules[0].answer',
    );
    expect(policyError({ rules: [{ match: { tool: 'x' }, answer: 'y' }] }).issues[0]?.field).toBe('rules[0].match.field');
  });
});

describe('evaluatePolicy', () => {
  const policy = parsePolicy({
    rules: [
      { match: { server: 'github', field: 'username' }, answer: 'octocat' },
      { match: { mode: 'url' }, action: 'decline', because: 'no browser in CI' },
      { match: { field: 'confirm' }, action: 'accept', when: 'MCPX_ASSUME_YES=1' },
      { match: { server: 'lin*', tool: 'deploy' }, answer: { username: 'release-bot' } },
    ],
  });

  it('answers a matching field with the rule and says which rule fired', () => {
    const decision = evaluatePolicy(policy, q());
    expect(decision).toMatchObject({
      kind: 'answer',
      answer: { action: 'accept', content: { username: 'octocat' } },
      fired: { index: 0 },
    });
  });

  it('acts on mode, and matches servers with a wildcard', () => {
    expect(
      evaluatePolicy(policy, q({ server: 'other', mode: 'url', url: 'https://x', requestedSchema: undefined })),
    ).toMatchObject({ kind: 'answer', answer: { action: 'decline' }, fired: { index: 1 } });
    expect(evaluatePolicy(policy, q({ server: 'linear', tool: 'deploy' }))).toMatchObject({
      answer: { content: { username: 'release-bot' } },
      fired: { index: 3 },
    });
  });

  it('applies a rule with `when` only while the variable has that value', () => {
    const confirm = q({
      server: 'other',
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    expect(evaluatePolicy(policy, confirm, {})).toMatchObject({ kind: 'ask' });
    expect(evaluatePolicy(policy, confirm, { MCPX_ASSUME_YES: '0' })).toMatchObject({ kind: 'ask' });
    expect(evaluatePolicy(policy, confirm, { MCPX_ASSUME_YES: '1' })).toMatchObject({
      kind: 'answer',
      answer: { action: 'accept', content: { confirm: true } },
      fired: { index: 2 },
    });
  });

  it('never sends a rule answer that does not fit the question, and says why it passed', () => {
    const short = parsePolicy({ rules: [{ match: { field: 'username' }, answer: 'x' }] });
    const decision = evaluatePolicy(short, q());
    expect(decision.kind).toBe('ask');
    expect(decision.kind === 'ask' && decision.passed[0]?.reason).toMatch(/does not fit/);
  });

  it('cancels what no rule matches in auto mode, never declines', () => {
    expect(evaluatePolicy(withMode(policy, 'auto'), q({ server: 'nobody' }))).toMatchObject({
      kind: 'answer',
      answer: { action: 'cancel' },
    });
  });

  it('declines everything in decline mode', () => {
    expect(evaluatePolicy(withMode(policy, 'decline'), q())).toMatchObject({ kind: 'answer', answer: { action: 'decline' } });
  });

  it('fails the call in error mode with a message that says a question was asked', () => {
    const decision = evaluatePolicy(withMode(policy, 'error'), q({ server: 'nobody', message: 'Delete everything?' }));
    expect(decision.kind).toBe('refuse');
    if (decision.kind !== 'refuse') return;
    expect(decision.error.code).toBe('ELICITATION_REFUSED');
    expect(decision.error.message).toMatch(
      /nobody asked a question during create_issue \(elc-0000000000000001: "Delete everything\?"\)/,
    );
  });

  it('routes to the person when the server asks for a person, and ignores a hint toward the agent', () => {
    expect(evaluatePolicy(policy, q({ server: 'x', meta: { 'io.mcpx/audience': 'user' } }))).toMatchObject({
      kind: 'ask',
      audience: 'person',
    });
    expect(evaluatePolicy(policy, q({ server: 'x', audience: 'user' }))).toMatchObject({ kind: 'ask', audience: 'person' });
    expect(evaluatePolicy(policy, q({ server: 'x', meta: { 'io.mcpx/audience': 'agent' } }))).toMatchObject({
      kind: 'ask',
      audience: 'any',
    });
    expect(evaluatePolicy(parsePolicy({ audience: 'person' }), q())).toMatchObject({ kind: 'ask', audience: 'person' });
  });
});
