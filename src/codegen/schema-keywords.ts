/** The JSON Schema keywords the converter reads, ignores on purpose, or cannot follow. */

/** Keywords that only constrain values of a type already expressed: ignoring them widens nothing unsafely. */
const CONSTRAINTS = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'minProperties',
  'maxProperties',
  'propertyNames',
  'dependentRequired',
  'not',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
]);
/** Keywords that carry no type: annotations and identifiers. */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$anchor',
  '$comment',
  '$vocabulary',
  '$defs',
  'definitions',
  'title',
  'description',
  'default',
  'examples',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  'format',
  'nullable',
  '$dynamicAnchor',
]);
/** Keywords whose meaning a static type cannot follow: the schema degrades to `unknown`. */
export const UNSUPPORTED = new Set(['if', 'then', 'else', 'dependentSchemas', 'dependencies', '$dynamicRef', '$recursiveRef']);
/** Every keyword that is read, ignored on purpose, or only annotates (vendor `x-...` ones are also let through). */
export const KNOWN = new Set([
  ...CONSTRAINTS,
  ...ANNOTATIONS,
  ...[
    '$ref',
    'type',
    'enum',
    'const',
    'properties',
    'required',
    'additionalProperties',
    'patternProperties',
    'items',
    'prefixItems',
    'allOf',
    'anyOf',
    'oneOf',
  ],
  // OpenAPI and validator habits that carry no type
  'discriminator',
  'errorMessage',
]);

export const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
