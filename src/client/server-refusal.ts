/**
 * A server's own refusal of a tool's arguments (`-32602`, or an `isError` result saying "Input validation error"),
 * read back as field-level issues (`ms: expected number, got string`) instead of the raw protocol text.
 * Kept apart from argument-check.ts so the CLI can read a refusal without loading a schema validator.
 */
import type { Issue } from '../errors.js';

// What SDK-built servers say: v2 `ms: Invalid input: expected number, received string`, v1 (zod 3/4)
// `Invalid input: expected number, received string at ms`, one problem per line or per `; `.
const VALIDATION = /Input validation error|Invalid arguments for tool|MCP error -32602/i;
const WITH_FIELD_FIRST = /^\s*([\w.[\]-]+): (?:Invalid input: )?expected (.+?), received (\w+)\s*$/i;
const WITH_FIELD_LAST = /^\s*(?:Invalid input: )?expected (.+?), received (\w+) at ([\w.[\]-]+)\s*$/i;

/** A server's validation refusal read as issues; undefined when the text is not one (or says nothing readable). */
export function issuesFromServerText(text: string): Issue[] | undefined {
  if (!VALIDATION.test(text)) return undefined;
  const body = text.replace(/^[\s\S]*?Invalid arguments for tool [^:]+:\s*/i, '');
  const issues: Issue[] = [];
  for (const part of body.split(/\n|;\s+/)) {
    const first = WITH_FIELD_FIRST.exec(part);
    const last = first ? undefined : WITH_FIELD_LAST.exec(part);
    const [field, expected, received] = first
      ? [first[1]!, first[2]!, first[3]!]
      : last
        ? [last[3]!, last[1]!, last[2]!]
        : [undefined, undefined, undefined];
    if (field === undefined) continue;
    const got = received === 'undefined' ? 'nothing' : received;
    issues.push({ field, expected: expected!, message: `${field}: expected ${expected}, got ${got}` });
  }
  return issues.length ? issues : undefined;
}
