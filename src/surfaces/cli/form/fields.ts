/**
 * One requested-schema property as a form field: what kind of prompt it needs, its choices, its default,
 * and a check of one value against the schema (the same `checkContent` the broker and the client use).
 */
import { checkContent } from '../../../elicitation/validate.js';
import type { ElicitationSchema, PrimitiveSchema } from '../../../types.js';
import { sanitizeLine } from '../sanitize.js';

export interface Choice {
  value: string;
  label: string;
}

/** What every field has: the property's name, its label and hint, whether it is required, and its schema. */
interface FieldBase {
  name: string;
  label: string;
  hint?: string;
  required: boolean;
  schema: PrimitiveSchema;
}

export type Field =
  | (FieldBase & { kind: 'text'; placeholder?: string; defaultValue?: string })
  | (FieldBase & { kind: 'number'; integer: boolean; defaultValue?: string })
  | (FieldBase & { kind: 'boolean'; defaultValue?: boolean })
  | (FieldBase & { kind: 'select'; choices: Choice[]; defaultValue?: string })
  | (FieldBase & { kind: 'multiselect'; choices: Choice[]; defaultValue?: string[] });

const FORMAT_PLACEHOLDER: Record<string, string> = {
  email: 'name@example.com',
  uri: 'https://…',
  date: 'YYYY-MM-DD',
  'date-time': 'YYYY-MM-DDTHH:MM:SSZ',
};

/** The fields of a form question, in the schema's order. */
export function fieldsOf(schema: ElicitationSchema | undefined): Field[] {
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {}).map(([name, property]) => fieldOf(name, property ?? {}, required.has(name)));
}

function fieldOf(name: string, schema: PrimitiveSchema, required: boolean): Field {
  const label = sanitizeLine(schema.title ?? name);
  const description = schema.description === undefined ? undefined : sanitizeLine(schema.description);
  const hint = description && description !== label ? description : undefined;
  const base = { name, label, required, schema, ...(hint === undefined ? {} : { hint }) };
  const single = choicesOf(schema);
  if (single) {
    return {
      ...base,
      kind: 'select',
      choices: single,
      ...(typeof schema.default === 'string' ? { defaultValue: schema.default } : {}),
    };
  }
  if (schema.type === 'array') {
    const items = (schema.items ?? {}) as Record<string, unknown>;
    const defaults = Array.isArray(schema.default) ? schema.default.filter((v): v is string => typeof v === 'string') : undefined;
    return { ...base, kind: 'multiselect', choices: choicesOf(items) ?? [], ...(defaults ? { defaultValue: defaults } : {}) };
  }
  if (schema.type === 'boolean') {
    return { ...base, kind: 'boolean', ...(typeof schema.default === 'boolean' ? { defaultValue: schema.default } : {}) };
  }
  if (schema.type === 'number' || schema.type === 'integer') {
    return {
      ...base,
      kind: 'number',
      integer: schema.type === 'integer',
      ...(typeof schema.default === 'number' ? { defaultValue: String(schema.default) } : {}),
    };
  }
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  const placeholder = format ? FORMAT_PLACEHOLDER[format] : undefined;
  return {
    ...base,
    kind: 'text',
    ...(placeholder === undefined ? {} : { placeholder }),
    ...(typeof schema.default === 'string' ? { defaultValue: schema.default } : {}),
  };
}

/** Choices of an enum: `oneOf`/`anyOf` of `{const, title}`, or `enum` with optional legacy `enumNames`. */
function choicesOf(schema: Record<string, unknown>): Choice[] | undefined {
  const titled = (schema.oneOf ?? schema.anyOf) as Array<{ const?: unknown; title?: unknown }> | undefined;
  if (Array.isArray(titled)) {
    return titled
      .filter((branch) => typeof branch?.const === 'string')
      .map((branch) => ({ value: branch.const as string, label: sanitizeLine(branch.title ?? branch.const) }));
  }
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : [];
    return schema.enum
      .filter((value): value is string => typeof value === 'string')
      .map((value, index) => ({ value, label: sanitizeLine(names[index] ?? value) }));
  }
  return undefined;
}

/** Turns what was typed into the field's value; undefined means "left empty". */
export function parseTyped(field: Field, typed: string | undefined): unknown {
  const text =
    (typed ?? '').trim() === '' ? (field.kind === 'text' || field.kind === 'number' ? field.defaultValue : undefined) : typed;
  if (text === undefined || text === '') return undefined;
  if (field.kind === 'number') return Number(text.trim());
  return text;
}

/** Why a value does not fit the field, in words; undefined when it fits. */
export function problemWith(field: Field, value: unknown): string | undefined {
  if (field.kind === 'number' && typeof value === 'number' && Number.isNaN(value))
    return `expected ${field.integer ? 'a whole number' : 'a number'}`;
  const schema: ElicitationSchema = {
    type: 'object',
    properties: { [field.name]: field.schema },
    required: field.required ? [field.name] : [],
  };
  const check = checkContent(schema, value === undefined ? {} : { [field.name]: value }, { applyDefaults: false });
  if (check.ok) return undefined;
  return check.issues.map((issue) => `expected ${issue.expected}`).join('; ');
}
