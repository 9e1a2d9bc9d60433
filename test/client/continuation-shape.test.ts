/**
 * parseContinuation uses a continuation as it is only when its schema would return it field for field: every
 * variant here is judged both ways, and one taken as it is must equal what the schema gives.
 */
import { describe, expect, it } from 'vitest';
import { isExactContinuation } from '../../src/fast/index.js';
import { parseContinuation } from '../../src/client/modern-call.js';
import { isMcpxError } from '../../src/errors.js';

const question = {
  id: 'elc-0123456789abcdef',
  server: 'fx',
  tool: 'ask_form',
  mode: 'form',
  message: 'Details?',
  era: 'modern',
  callId: 'call-1',
  key: 'details',
  requestedSchema: { type: 'object', properties: { repo: { type: 'string' } } },
};
const valid = {
  version: 1,
  server: 'fx',
  tool: 'ask_form',
  arguments: { title: 'x', nested: { deep: [1, 2] } },
  callId: 'call-1',
  era: 'modern',
  round: 1,
  inputRequests: { details: { method: 'elicitation/create', params: { message: 'Details?' } } },
  requestState: 'v1.abc',
  questions: [question],
  askedAt: 1_700_000_000_000,
};

/** Each variant: a name and the continuation. */
const variants: Array<[string, unknown]> = [
  ['as a call makes it', valid],
  [
    'with parent, method and answers',
    {
      ...valid,
      parent: 'call-0',
      method: 'prompts/get',
      answered: { a: { action: 'accept', content: { x: 1 } }, b: { action: 'decline' }, c: { action: 'accept' } },
    },
  ],
  ['a prototype-less arguments object', { ...valid, arguments: Object.assign(Object.create(null), { a: 1 }) }],
  ['a question with a field the schema keeps', { ...valid, questions: [{ ...question, extra: true }] }],
  ['an unknown top-level field (stripped)', { ...valid, extra: 1 }],
  ['a decline carrying content (stripped)', { ...valid, answered: { a: { action: 'decline', content: {} } } }],
  ['an accept with an extra field (stripped)', { ...valid, answered: { a: { action: 'accept', note: 'x' } } }],
  ['an optional field present as undefined', { ...valid, parent: undefined }],
  ['round zero', { ...valid, round: 0 }],
  ['round not an integer', { ...valid, round: 1.5 }],
  ['round past a safe integer', { ...valid, round: 2 ** 60 }],
  ['askedAt infinite', { ...valid, askedAt: Infinity }],
  ['an empty server', { ...valid, server: '' }],
  ['a legacy era', { ...valid, era: 'legacy' }],
  ['version 2', { ...valid, version: 2 }],
  ['arguments an array', { ...valid, arguments: [] }],
  ['arguments a class instance', { ...valid, arguments: new Date(0) }],
  ['a symbol key in arguments', { ...valid, arguments: { [Symbol('s')]: 1 } }],
  ['an own __proto__ key in inputRequests', { ...valid, inputRequests: JSON.parse('{"__proto__": {"x": 1}}') }],
  ['a question that is a class instance', { ...valid, questions: [Object.assign(new (class Q {})(), question)] }],
  ['a question id of another shape', { ...valid, questions: [{ ...question, id: 'elc-XYZ' }] }],
  ['a question without its key', { ...valid, questions: [{ ...question, key: undefined }] }],
  ['a question of an unknown mode', { ...valid, questions: [{ ...question, mode: 'voice' }] }],
  ['questions not an array', { ...valid, questions: {} }],
  ['an unknown action', { ...valid, answered: { a: { action: 'maybe' } } }],
  ['content not a record', { ...valid, answered: { a: { action: 'accept', content: 'yes' } } }],
  ['a requestState that is not a string', { ...valid, requestState: 7 }],
  ['null', null],
  ['a string', 'continuation'],
];

/** What the schema alone says: its output, or undefined when it refuses. */
function bySchema(value: unknown): unknown {
  // A symbol key (which the schema ignores) makes the shape check refuse, so the schema judges.
  const marked = value !== null && typeof value === 'object' ? { ...value, [Symbol('schema')]: true } : value;
  try {
    return parseContinuation(marked);
  } catch (error) {
    if (isMcpxError(error, 'CONTINUATION_INVALID')) return undefined;
    throw error;
  }
}

describe('a continuation used as it is', () => {
  it.each(variants)('only when the schema returns it field for field: %s', (_name, value) => {
    const schema = bySchema(value);
    if (isExactContinuation(value)) {
      expect(schema).toStrictEqual({ ...(value as object) });
      expect(parseContinuation(value)).toBe(value);
    } else if (schema === undefined) {
      expect(() => parseContinuation(value)).toThrow(expect.objectContaining({ code: 'CONTINUATION_INVALID' }));
    } else {
      expect(parseContinuation(value)).toEqual(schema);
    }
  });

  it('is the case for a continuation as a call makes it', () => {
    expect(isExactContinuation(valid)).toBe(true);
    expect(isExactContinuation({ ...valid, extra: 1 })).toBe(false);
  });
});
