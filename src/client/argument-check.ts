/**
 * A tool's arguments checked against its input schema before they are sent, as field-level issues
 * (`count: expected number, got string`), so a mistake is named before the server sees it.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Issue } from '../errors.js';

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, validateSchema: false });
const compiled = new Map<string, ValidateFunction | null>();

function validatorFor(schema: Record<string, unknown>): ValidateFunction | null {
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) {
    let validate: ValidateFunction | null = null;
    try {
      // The dialect named by `$schema` need not be registered: the keywords tools use are common to all of them.
      const { $schema: _dialect, $id: _id, ...body } = schema;
      validate = ajv.compile(body);
    } catch {
      // A schema ajv cannot use is not checked here; the server still checks the arguments itself.
    }
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, validate);
  }
  return compiled.get(key) ?? null;
}

/** The problems with `args` under the tool's input schema; empty when they fit (or the schema cannot be used). */
export function checkArguments(schema: Record<string, unknown> | undefined, args: Record<string, unknown>): Issue[] {
  if (!schema) return [];
  const validate = validatorFor(schema);
  if (!validate || validate(args)) return [];
  const issues: Issue[] = [];
  const seen = new Set<string>();
  for (const error of validate.errors ?? []) {
    // anyOf/oneOf report every branch; the parent error says it in one line.
    if (/\/(anyOf|oneOf)\/\d/.test(error.schemaPath)) continue;
    const field = fieldOf(error);
    const expected = expectedOf(error);
    const got = gotOf(error, args, field);
    const message = `${field || '(arguments)'}: expected ${expected}${got ? `, got ${got}` : ''}`;
    if (seen.has(message)) continue;
    seen.add(message);
    issues.push({ field, expected, message });
  }
  return issues;
}

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  const extra =
    error.keyword === 'required'
      ? String(error.params.missingProperty)
      : error.keyword === 'additionalProperties'
        ? String(error.params.additionalProperty)
        : undefined;
  return extra === undefined ? path : path ? `${path}.${extra}` : extra;
}

function expectedOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'a value (required)';
    case 'additionalProperties':
      return 'no such argument';
    case 'type':
      return String(p.type).replace(/,/g, ' or ');
    case 'enum':
      return `one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return JSON.stringify(p.allowedValue);
    case 'anyOf':
    case 'oneOf':
      return 'a value matching one of the allowed shapes';
    case 'format':
      return `a valid ${String(p.format)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `a number ${String(p.comparison)} ${String(p.limit)}`;
    case 'minLength':
      return `at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `at most ${String(p.limit)} characters`;
    case 'minItems':
      return `at least ${String(p.limit)} items`;
    case 'maxItems':
      return `at most ${String(p.limit)} items`;
    case 'pattern':
      return `text matching ${String(p.pattern)}`;
    default:
      return error.message ?? error.keyword;
  }
}

function gotOf(error: ErrorObject, args: Record<string, unknown>, field: string): string | undefined {
  if (error.keyword === 'required') return 'nothing';
  if (error.keyword === 'additionalProperties') return undefined;
  let value: unknown = args;
  for (const part of error.instancePath.split('/').filter(Boolean)) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  if (!field && value === args) return undefined;
  return typeOf(value, error.keyword !== 'type');
}

function typeOf(value: unknown, showValue: boolean): string {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (!showValue || kind === 'object' || kind === 'array') return kind;
  const shown = JSON.stringify(value);
  return shown.length > 40 ? kind : `${kind} ${shown}`;
}
