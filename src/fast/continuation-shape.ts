/**
 * A quick structural check that a value already is a continuation exactly as `parseContinuation`'s schema would
 * return it: every field of the right type and nothing the schema would strip. Such a value (the one a call of
 * this process just stopped with) is resumed as it is; anything else, however slight the doubt, goes through the
 * schema, whose parse and refusal are unchanged. The schema cost more than the rest of a resume's own work.
 */
import { ELICITATION_ID } from '../ids.js';

const CONTINUATION_KEYS = new Set([
  'version',
  'server',
  'tool',
  'arguments',
  'callId',
  'parent',
  'method',
  'era',
  'round',
  'inputRequests',
  'requestState',
  'questions',
  'askedAt',
  'answered',
]);

const isMethod = (value: unknown): boolean => value === 'prompts/get' || value === 'resources/read';
const optional = (value: unknown, check: (v: unknown) => boolean): boolean => value === undefined || check(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const nonEmpty = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

/** An object a record schema copies key for key: Object's own prototype, string keys only, no own `__proto__`. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype) return false;
  return Object.getOwnPropertySymbols(value).length === 0 && !Object.hasOwn(value, '__proto__');
}

function isQuestion(q: unknown): boolean {
  if (!isPlainRecord(q)) return false;
  return (
    isString(q.id) &&
    ELICITATION_ID.test(q.id) &&
    isString(q.server) &&
    isString(q.tool) &&
    (q.mode === 'form' || q.mode === 'url') &&
    isString(q.message) &&
    q.era === 'modern' &&
    isString(q.callId) &&
    isString(q.key) &&
    optional(q.method, isMethod)
  );
}

/** An answer with no field the schema strips: accept (with a record as content, if any), decline or cancel. */
function isAnswer(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  const keys = Object.keys(value);
  if (value.action === 'accept')
    return keys.every((key) => key === 'action' || (key === 'content' && isPlainRecord(value.content)));
  return (value.action === 'decline' || value.action === 'cancel') && keys.length === 1;
}

/** True when the schema would accept `value` and return it field for field (so it may be used as it is). */
export function isExactContinuation(value: unknown): boolean {
  if (!isPlainRecord(value) || !Object.keys(value).every((key) => CONTINUATION_KEYS.has(key))) return false;
  const c = value;
  return (
    c.version === 1 &&
    nonEmpty(c.server) &&
    nonEmpty(c.tool) &&
    isPlainRecord(c.arguments) &&
    nonEmpty(c.callId) &&
    optional(c.parent, isString) &&
    optional(c.method, isMethod) &&
    c.era === 'modern' &&
    Number.isSafeInteger(c.round) &&
    (c.round as number) > 0 &&
    isPlainRecord(c.inputRequests) &&
    optional(c.requestState, isString) &&
    Array.isArray(c.questions) &&
    c.questions.every(isQuestion) &&
    typeof c.askedAt === 'number' &&
    Number.isFinite(c.askedAt) &&
    optional(c.answered, (answered) => isPlainRecord(answered) && Object.values(answered).every(isAnswer))
  );
}
