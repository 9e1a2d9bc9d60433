/**
 * The config file's `elicit` block (the policy), read with the rest of the config so that one report lists the
 * servers' problems and the policy's together, and nothing reads the file a second time for it.
 */
import { isMcpxError, type Issue } from '../errors.js';
import { parsePolicy, type Policy } from '../policy/index.js';

/** The parsed `elicit` block (the default policy when it is absent), or its problems with fields under `elicit.`. */
export function parseElicitBlock(block: unknown): { policy: Policy; issues: Issue[] } {
  try {
    return { policy: parsePolicy(block ?? {}), issues: [] };
  } catch (error) {
    if (!isMcpxError(error) || error.code !== 'POLICY_INVALID') throw error;
    const issues = (error.data?.issues ?? []) as Issue[];
    return { policy: parsePolicy({}), issues: issues.map(underElicit) };
  }
}

function underElicit(issue: Issue): Issue {
  const field = issue.field ? `elicit.${issue.field}` : 'elicit';
  // A schema issue's message repeats the validator's words; say the field and what it expects instead.
  const schemaWords = issue.message.endsWith(`(expected ${issue.expected})`);
  return { ...issue, field, message: schemaWords ? `field "${field}": expected ${issue.expected}` : `elicit: ${issue.message}` };
}
