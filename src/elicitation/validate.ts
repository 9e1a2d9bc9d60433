/**
 * Checks an answer's content against a form question's requested schema (the MCP elicitation subset),
 * filling defaults first. Shared by the client seam and the broker so both refuse the same things.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Issue } from '../errors.js';
import type { ElicitationSchema } from '../types.js';

// ajv-formats ships CJS with a default export; under ESM interop it can arrive wrapped once more.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false, validateFormats: true });
addFormats(ajv);

const compiled = new Map<string, ValidateFunction>();

function validatorFor(schema: ElicitationSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    // Unknown fields are refused: a flat form has exactly the fields it asked for.
    const strictSchema = { additionalProperties: false, ...schema, type: 'object' };
    validate = ajv.compile(strictSchema);
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

export type ContentCheck = { ok: true; content: Record<string, unknown> } | { ok: false; issues: Issue[] };

/** Fills schema defaults into missing fields, then validates. Never mutates `content`. */
export function checkContent(
  schema: ElicitationSchema | undefined,
  content: unknown,
  options: { applyDefaults?: boolean } = {},
): ContentCheck {
  if (content === undefined || content === null || typeof content !== 'object' || Array.isArray(content)) {
    return {
      ok: false,
      issues: [
        {
          field: '',
          expected: 'an object of field values',
          message: `content must be an object of field values, got ${describe(content)}`,
        },
      ],
    };
  }
  const filled: Record<string, unknown> = { ...(content as Record<string, unknown>) };
  if (!schema) return { ok: true, content: filled };
  if (options.applyDefaults !== false) {
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (filled[name] === undefined && property && 'default' in property) filled[name] = property.default;
    }
  }
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (error) {
    return {
      ok: false,
      issues: [
        {
          field: '',
          expected: 'a valid requested schema',
          message: `the requested schema cannot be used: ${(error as Error).message}`,
        },
      ],
    };
  }
  if (validate(filled)) return { ok: true, content: filled };
  return { ok: false, issues: toIssues(validate.errors ?? [], schema) };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value).slice(0, 40)}` : typeof value;
}

function toIssues(errors: ErrorObject[], schema: ElicitationSchema): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // anyOf/oneOf branches produce one error per branch; the parent error says it better.
    if (error.schemaPath.includes('/oneOf/') || error.schemaPath.includes('/anyOf/')) continue;
    const field = fieldOf(error);
    const expected = expectedOf(error, schema, field);
    const key = `${field}\u0000${expected}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ field, expected, message: field ? `${field}: expected ${expected}` : `expected ${expected}` });
  }
  return issues;
}

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  if (error.keyword === 'required')
    return path ? `${path}.${String(error.params.missingProperty)}` : String(error.params.missingProperty);
  if (error.keyword === 'additionalProperties') {
    const extra = String(error.params.additionalProperty);
    return path ? `${path}.${extra}` : extra;
  }
  return path;
}

function expectedOf(error: ErrorObject, schema: ElicitationSchema, field: string): string {
  const property = schema.properties?.[field.split('.')[0] ?? ''];
  switch (error.keyword) {
    case 'required':
      return `a value (the field is required${property?.type ? `, ${property.type}` : ''})`;
    case 'additionalProperties':
      return `no such field (the question asks for: ${Object.keys(schema.properties ?? {}).join(', ') || 'nothing'})`;
    case 'type':
      return `${String(error.params.type)}`;
    case 'enum':
      return `one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${JSON.stringify(error.params.allowedValue)}`;
    case 'oneOf':
    case 'anyOf': {
      const options = choicesOf(property);
      return options ? `one of ${options}` : 'a value matching one of the allowed shapes';
    }
    case 'format':
      return `a valid ${String(error.params.format)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `a number ${String(error.params.comparison)} ${String(error.params.limit)}`;
    case 'minLength':
      return `at least ${String(error.params.limit)} characters`;
    case 'maxLength':
      return `at most ${String(error.params.limit)} characters`;
    case 'minItems':
      return `at least ${String(error.params.limit)} selections`;
    case 'maxItems':
      return `at most ${String(error.params.limit)} selections`;
    case 'pattern':
      return `text matching ${String(error.params.pattern)}`;
    default:
      return error.message ?? error.keyword;
  }
}

function choicesOf(property: Record<string, unknown> | undefined): string | undefined {
  const branches = (property?.oneOf ?? property?.anyOf) as Array<{ const?: unknown }> | undefined;
  if (!Array.isArray(branches)) return undefined;
  const values = branches.map((b) => b?.const).filter((v) => v !== undefined);
  return values.length ? values.map((v) => JSON.stringify(v)).join(', ') : undefined;
}
