/**
 * Policy: answering without a human. Modes ask | auto | decline | error, rules matched before anyone is asked,
 * and routing to the person or anyone. Pure functions over the shared vocabulary; imports no broker and no surface.
 */
export { parsePolicy, withMode, ruleName, POLICY_MODES } from './schema.js';
export type { Policy, PolicyMode, PolicyRule } from './schema.js';
export { evaluatePolicy, audienceOf, matchesQuestion } from './evaluate.js';
export { ttlFromEnv } from './read.js';
export type { Audience, FiredRule, PolicyDecision } from './evaluate.js';
