/** What a script sees of a question (its onElicit handler), and the form its own ask() may use. */
import type { ElicitationSchema, Question } from '../types.js';
import { checkUrl } from '../elicitation/url.js';

export function questionForScript(question: Question): Record<string, unknown> {
  return {
    id: question.id,
    server: question.server,
    tool: question.tool,
    mode: question.mode,
    message: question.message,
    // `schema` is the short name the design record's examples use.
    schema: question.requestedSchema,
    requestedSchema: question.requestedSchema,
    url: question.url,
    ...(question.mode === 'url' ? { domain: checkUrl(question.url).domain } : {}),
    callId: question.callId,
    era: question.era,
    audience: question.audience,
    // mcpx's own question (a write confirmation, a credential, a sign-in): the script may decline, not accept.
    ...(question.asker ? { asker: question.asker } : {}),
  };
}

export function textAnswerSchema(): ElicitationSchema {
  return { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
}

export function isFormSchema(value: unknown): value is ElicitationSchema {
  if (value === null || typeof value !== 'object') return false;
  const schema = value as { type?: unknown; properties?: unknown };
  return (
    schema.type === 'object' &&
    schema.properties !== null &&
    typeof schema.properties === 'object' &&
    !Array.isArray(schema.properties)
  );
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
