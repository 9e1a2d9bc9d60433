/**
 * Hard schemas, each with the declarations it must produce (whitespace-insensitive), values the type must accept
 * and values it must reject (checked by the compiler), and the warnings it must raise.
 */

export interface CorpusCase {
  name: string;
  schema: unknown;
  /** The declarations `schemaToTypeScript(schema, { name: 'Input' })` prints. */
  expected: string;
  accepts?: unknown[];
  rejects?: unknown[];
  /** Substrings, one per expected warning (in order); absent = no warnings. */
  warnings?: string[];
}

export const corpus: CorpusCase[] = [
  {
    name: 'flat object with required and optional',
    schema: {
      type: 'object',
      properties: { title: { type: 'string' }, count: { type: 'integer' }, draft: { type: 'boolean' } },
      required: ['title'],
    },
    expected: 'export interface Input { title: string; count?: number; draft?: boolean; }',
    accepts: [{ title: 'x' }, { title: 'x', count: 2, draft: true }],
    rejects: [{}, { title: 1 }, { title: 'x', extra: 1 }],
  },
  {
    name: 'nested objects three deep',
    schema: {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'number' } }, required: ['c'] } } },
      },
    },
    expected: 'export interface Input { a?: { b?: { c: number; }; }; }',
    accepts: [{ a: { b: { c: 1 } } }, {}],
    rejects: [{ a: { b: {} } }],
  },
  {
    name: 'descriptions, defaults, formats and deprecation become JSDoc',
    schema: {
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time', description: 'When it happens' },
        size: { type: 'integer', default: 10 },
        old: { type: 'string', deprecated: true },
      },
    },
    expected:
      'export interface Input { /** * When it happens * @format date-time */ when?: string; /** @default 10 */ size?: number; /** @deprecated */ old?: string; }',
  },
  {
    name: 'a description cannot close the comment or add tags',
    schema: {
      type: 'object',
      description: 'ends */ here\n@internal',
      properties: { x: { type: 'string', description: '*/ export const pwned = 1; /*' } },
    },
    expected:
      '/** * ends *\\/ here * \\@internal */ export interface Input { /** *\\/ export const pwned = 1; /* */ x?: string; }',
  },
  {
    name: 'additionalProperties false closes the object',
    schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
    expected: 'export interface Input { a?: string; }',
    accepts: [{ a: 'x' }],
    rejects: [{ b: 1 }],
  },
  {
    name: 'additionalProperties schema beside properties',
    schema: {
      type: 'object',
      properties: { id: { type: 'integer' } },
      required: ['id'],
      additionalProperties: { type: 'string' },
    },
    expected: 'export interface Input { id: number; [key: string]: string | number; }',
    accepts: [{ id: 1, name: 'x' }],
    rejects: [{ id: 1, flag: true }],
  },
  {
    name: 'additionalProperties with optional properties admits undefined',
    schema: { type: 'object', properties: { id: { type: 'integer' } }, additionalProperties: { type: 'boolean' } },
    expected: 'export interface Input { id?: number; [key: string]: boolean | number | undefined; }',
    accepts: [{ on: true }],
  },
  {
    name: 'a map object (only additionalProperties)',
    schema: { type: 'object', additionalProperties: { type: 'number' } },
    expected: 'export interface Input { [key: string]: number; }',
    accepts: [{ a: 1, b: 2 }],
    rejects: [{ a: 'x' }],
  },
  {
    name: 'an open object with no properties',
    schema: { type: 'object' },
    expected: 'export interface Input { [key: string]: unknown; }',
    accepts: [{}, { anything: [1] }],
    rejects: ['text'],
  },
  {
    name: 'a closed empty object',
    schema: { type: 'object', additionalProperties: false },
    expected: 'export interface Input { [key: string]: never; }',
    accepts: [{}],
    rejects: [{ a: 1 }],
  },
  {
    name: 'patternProperties join the index signature',
    schema: { type: 'object', patternProperties: { '^x-': { type: 'string' }, '^n-': { type: 'number' } } },
    expected: 'export interface Input { [key: string]: string | number; }',
  },
  {
    name: 'property names that are not identifiers are quoted',
    schema: {
      type: 'object',
      properties: {
        'content-type': { type: 'string' },
        '2fa': { type: 'boolean' },
        'with space': { type: 'string' },
        __proto__x: { type: 'string' },
      },
      required: ['content-type'],
    },
    expected: 'export interface Input { "content-type": string; "2fa"?: boolean; "with space"?: string; __proto__x?: string; }',
    accepts: [{ 'content-type': 'a' }],
  },
  {
    name: 'required names without property schemas are still required',
    schema: { type: 'object', required: ['token'] },
    expected: 'export interface Input { token: unknown; }',
    rejects: [{}],
  },
  {
    name: 'array of strings',
    schema: { type: 'array', items: { type: 'string' } },
    expected: 'export type Input = string[];',
    accepts: [['a', 'b'], []],
    rejects: [[1]],
  },
  {
    name: 'array of unions gets parentheses',
    schema: { type: 'array', items: { type: ['string', 'number'] } },
    expected: 'export type Input = (string | number)[];',
    accepts: [['a', 1]],
    rejects: [[true]],
  },
  {
    name: 'array without items',
    schema: { type: 'array' },
    expected: 'export type Input = unknown[];',
  },
  {
    name: 'tuple via prefixItems, closed',
    schema: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
    expected: 'export type Input = [string, number];',
    accepts: [['a', 1]],
    rejects: [['a'], [1, 'a'], ['a', 1, 2]],
  },
  {
    name: 'tuple with optional tail by minItems',
    schema: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }], minItems: 1 },
    expected: 'export type Input = [string, number?, boolean?];',
    accepts: [['a'], ['a', 1], ['a', 1, true]],
    rejects: [[]],
  },
  {
    name: 'tuple with a rest from items',
    schema: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' } },
    expected: 'export type Input = [string, ...number[]];',
    accepts: [['a'], ['a', 1, 2]],
    rejects: [['a', 'b']],
  },
  {
    name: 'draft-07 tuple (items array) with additionalItems',
    schema: { type: 'array', items: [{ type: 'boolean' }, { type: 'string' }], additionalItems: { type: 'null' } },
    expected: 'export type Input = [boolean, string, ...null[]];',
    accepts: [
      [true, 'a'],
      [true, 'a', null],
    ],
  },
  {
    name: 'string enum',
    schema: { type: 'string', enum: ['low', 'medium', 'high'] },
    expected: 'export type Input = "low" | "medium" | "high";',
    accepts: ['low'],
    rejects: ['urgent'],
  },
  {
    name: 'mixed enum with null, numbers and booleans',
    schema: { enum: ['a', 1, true, null] },
    expected: 'export type Input = "a" | 1 | true | null;',
    accepts: ['a', 1, true, null],
    rejects: [2, false],
  },
  {
    name: 'enum with object and array members',
    schema: { enum: [{ k: 'v' }, [1, 2]] },
    expected: 'export type Input = { k: "v"; } | [1, 2];',
    accepts: [{ k: 'v' }, [1, 2]],
    rejects: [{ k: 'w' }],
  },
  {
    name: 'const',
    schema: { type: 'object', properties: { kind: { const: 'user' }, version: { const: 2 } }, required: ['kind'] },
    expected: 'export interface Input { kind: "user"; version?: 2; }',
    accepts: [{ kind: 'user' }],
    rejects: [{ kind: 'org' }],
  },
  {
    name: 'strings with quotes and escapes in literals',
    schema: { enum: ['say "hi"', 'back\\slash', 'line\nbreak'] },
    expected: 'export type Input = "say \\"hi\\"" | "back\\\\slash" | "line\\nbreak";',
    accepts: ['say "hi"'],
  },
  {
    name: 'type array with null',
    schema: { type: ['string', 'null'] },
    expected: 'export type Input = string | null;',
    accepts: ['a', null],
    rejects: [1],
  },
  {
    name: 'OpenAPI nullable',
    schema: { type: 'integer', nullable: true },
    expected: 'export type Input = number | null;',
    accepts: [1, null],
  },
  {
    name: 'type array of object and array',
    schema: { type: ['object', 'array'], properties: { a: { type: 'string' } }, items: { type: 'number' } },
    expected: 'export type Input = { a?: string; } | number[];',
    accepts: [{ a: 'x' }, [1]],
  },
  {
    name: 'oneOf discriminated union',
    schema: {
      oneOf: [
        { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number' } }, required: ['kind', 'r'] },
        { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
      ],
    },
    expected: 'export type Input = { kind: "circle"; r: number; } | { kind: "square"; side: number; };',
    accepts: [
      { kind: 'circle', r: 1 },
      { kind: 'square', side: 2 },
    ],
    rejects: [{ kind: 'circle', side: 2 }],
  },
  {
    name: 'anyOf of primitives collapses duplicates',
    schema: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'string' }] },
    expected: 'export type Input = string | number;',
  },
  {
    name: 'allOf intersects objects',
    schema: {
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
      ],
    },
    expected: 'export type Input = { a: string; } & { b: number; };',
    accepts: [{ a: 'x', b: 1 }],
    rejects: [{ a: 'x' }],
  },
  {
    name: 'properties beside oneOf: base and union intersect',
    schema: {
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      oneOf: [
        { properties: { a: { type: 'number' } }, required: ['a'] },
        { properties: { b: { type: 'number' } }, required: ['b'] },
      ],
    },
    expected: 'export type Input = { id: string; } & ({ a: number; } | { b: number; });',
    accepts: [
      { id: 'x', a: 1 },
      { id: 'x', b: 1 },
    ],
    rejects: [{ id: 'x' }],
  },
  {
    name: 'oneOf members that only add constraints vanish',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      oneOf: [{ not: { required: ['a'] } }, { not: { required: ['b'] } }],
    },
    expected: 'export interface Input { a?: string; b?: string; }',
  },
  {
    name: '$defs with a recursive tree',
    schema: {
      type: 'object',
      properties: { root: { $ref: '#/$defs/Node' } },
      $defs: {
        Node: {
          type: 'object',
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
          required: ['name'],
        },
      },
    },
    expected: 'export interface Input { root?: Node; } export interface Node { name: string; children?: Node[]; }',
    accepts: [{ root: { name: 'a', children: [{ name: 'b' }] } }],
    rejects: [{ root: { children: [] } }],
  },
  {
    name: 'definitions (draft-07) and a ref to the root',
    schema: {
      type: 'object',
      properties: { value: { $ref: '#/definitions/Value' }, next: { $ref: '#' } },
      definitions: { Value: { type: ['string', 'number'] } },
    },
    expected: 'export interface Input { value?: Value; next?: Input; } export type Value = string | number;',
    accepts: [{ value: 1, next: { value: 'a' } }],
  },
  {
    name: 'mutually recursive definitions',
    schema: {
      $ref: '#/$defs/A',
      $defs: {
        A: { type: 'object', properties: { b: { $ref: '#/$defs/B' } } },
        B: { type: 'object', properties: { a: { $ref: '#/$defs/A' } } },
      },
    },
    expected: 'export type Input = A; export interface A { b?: B; } export interface B { a?: A; }',
    accepts: [{ b: { a: { b: {} } } }],
  },
  {
    name: 'a JSON value type: recursion through a union of arrays and maps',
    schema: {
      $ref: '#/$defs/Json',
      $defs: {
        Json: {
          anyOf: [
            { type: ['string', 'number', 'boolean', 'null'] },
            { type: 'array', items: { $ref: '#/$defs/Json' } },
            { type: 'object', additionalProperties: { $ref: '#/$defs/Json' } },
          ],
        },
      },
    },
    expected:
      'export type Input = Json; export type Json = string | number | boolean | null | Json[] | { [key: string]: Json; };',
    accepts: [{ a: [1, 'x', null, { b: true }] }],
  },
  {
    name: 'a ref cycle with nothing in between degrades to unknown',
    schema: { $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/B' }, B: { anyOf: [{ $ref: '#/$defs/A' }, { type: 'string' }] } } },
    expected: 'export type Input = A; export type A = unknown; export type B = unknown;',
    warnings: ['type A refers to itself', 'type B refers to itself'],
  },
  {
    name: 'a ref to a property of the same schema by JSON pointer',
    schema: {
      type: 'object',
      properties: { a: { type: 'object', properties: { x: { type: 'number' } } }, b: { $ref: '#/properties/a' } },
    },
    expected: 'export interface Input { a?: { x?: number; }; b?: InputA; } export interface InputA { x?: number; }',
  },
  {
    name: 'a ref by $anchor',
    schema: {
      type: 'object',
      properties: { item: { $ref: '#item' } },
      $defs: { Item: { $anchor: 'item', type: 'string', format: 'uuid' } },
    },
    expected: 'export interface Input { item?: Item; } /** @format uuid */ export type Item = string;',
  },
  {
    name: 'a $ref with escaped pointer characters',
    schema: { type: 'object', properties: { v: { $ref: '#/$defs/a~1b%20c' } }, $defs: { 'a/b c': { type: 'boolean' } } },
    expected: 'export interface Input { v?: ABC; } export type ABC = boolean;',
  },
  {
    name: 'a $ref with sibling keywords intersects',
    schema: {
      type: 'object',
      properties: { p: { $ref: '#/$defs/Base', properties: { extra: { type: 'string' } } } },
      $defs: { Base: { type: 'object', properties: { id: { type: 'number' } } } },
    },
    expected: 'export interface Input { p?: Base & { extra?: string; }; } export interface Base { id?: number; }',
  },
  {
    name: 'a $ref to a local file is never read',
    schema: { type: 'object', properties: { secret: { $ref: '/etc/passwd' }, other: { $ref: 'file:///etc/hostname' } } },
    expected: 'export interface Input { secret?: unknown; other?: unknown; }',
    warnings: ['/properties/secret/$ref', '/properties/other/$ref'],
  },
  {
    name: 'a $ref to a URL is never fetched',
    schema: { $ref: 'https://example.com/schema.json#/definitions/X' },
    expected: 'export type Input = unknown;',
    warnings: ['points outside this schema'],
  },
  {
    name: 'a $ref to nothing',
    schema: { type: 'object', properties: { a: { $ref: '#/$defs/Missing' } } },
    expected: 'export interface Input { a?: unknown; }',
    warnings: ['points at nothing'],
  },
  {
    name: 'if/then/else degrades to unknown with a warning naming the path',
    schema: {
      type: 'object',
      properties: { cond: { type: 'object', if: { properties: { a: { const: 1 } } }, then: { required: ['b'] } } },
    },
    expected: 'export interface Input { cond?: unknown; }',
    warnings: ['/properties/cond/if'],
  },
  {
    name: '$dynamicRef degrades to unknown',
    schema: { type: 'array', items: { $dynamicRef: '#meta' } },
    expected: 'export type Input = unknown[];',
    warnings: ['$dynamicRef'],
  },
  {
    name: 'an unknown type name is ignored with a warning',
    schema: { type: 'object', properties: { when: { type: 'date' } } },
    expected: 'export interface Input { when?: unknown; }',
    warnings: ['unknown type "date"'],
  },
  {
    name: 'boolean schemas',
    schema: { type: 'object', properties: { anything: true, nothing: false } },
    expected: 'export interface Input { anything?: unknown; nothing?: never; }',
  },
  {
    name: 'no type but properties means an object',
    schema: { properties: { a: { type: 'string' } }, required: ['a'] },
    expected: 'export interface Input { a: string; }',
  },
  {
    name: 'an empty schema is unknown',
    schema: {},
    expected: 'export type Input = unknown;',
  },
  {
    name: 'garbage in place of a schema',
    schema: { type: 'object', properties: { a: 42, b: 'string', c: null } },
    expected: 'export interface Input { a?: unknown; b?: unknown; c?: unknown; }',
    warnings: ['/properties/a', '/properties/b', '/properties/c'],
  },
  {
    name: 'depth is bounded',
    schema: (() => {
      let s: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < 60; i += 1) s = { type: 'array', items: s };
      return s;
    })(),
    expected: `export type Input = ${'unknown'}${'[]'.repeat(41)};`,
    warnings: ['nested deeper than 40 levels'],
  },
  {
    name: 'huge enums fall back to their base type',
    schema: { type: 'string', enum: Array.from({ length: 600 }, (_, i) => `v${i}`) },
    expected: 'export type Input = string;',
    warnings: ['enum has 600 members'],
  },
  {
    name: 'title is the doc when there is no description; examples become tags',
    schema: { type: 'object', properties: { q: { type: 'string', title: 'Query', examples: ['cats'] } } },
    expected: 'export interface Input { /** * Query * @example "cats" */ q?: string; }',
  },
  {
    name: 'integer and number constraints add no type noise',
    schema: {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 0, maximum: 10, multipleOf: 2 },
        s: { type: 'string', minLength: 1, pattern: '^a' },
      },
    },
    expected: 'export interface Input { n?: number; s?: string; }',
  },
];
