// A form question's fields, built from its requested schema: the field kinds of the terminal form (strings with
// formats, numbers with bounds, booleans, single and multi enums with titles, defaults), checked in the browser
// before sending; the server checks again and its issues land beside the same fields.
import { el } from './api.js';

const INPUT_TYPE = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

/** Choices of an enum: oneOf/anyOf of {const, title}, or enum with optional legacy enumNames. */
function choicesOf(schema) {
  const titled = schema.oneOf || schema.anyOf;
  if (Array.isArray(titled)) {
    return titled
      .filter((b) => b && typeof b.const === 'string')
      .map((b) => ({ value: b.const, label: String(b.title ?? b.const) }));
  }
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.filter((v) => typeof v === 'string').map((v, i) => ({ value: v, label: String(names[i] ?? v) }));
  }
  return undefined;
}

function kindOf(schema) {
  if (choicesOf(schema)) return 'select';
  if (schema.type === 'array') return 'multi';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'number' || schema.type === 'integer') return 'number';
  return 'text';
}

/** The fields of a schema: [{ name, kind, schema, required, node, error, read(), check() }]. */
export function buildFields(schema, idPrefix) {
  const required = new Set(Array.isArray(schema && schema.required) ? schema.required : []);
  return Object.entries((schema && schema.properties) || {}).map(([name, property], index) =>
    buildField(name, property || {}, required.has(name), `${idPrefix}-${index}`),
  );
}

function buildField(name, schema, required, id) {
  const kind = kindOf(schema);
  const label = String(schema.title ?? name);
  const hintText =
    schema.description !== undefined && String(schema.description) !== label ? String(schema.description) : undefined;
  const error = el('p', { class: 'field-error', id: `${id}-error`, 'data-field-error': name });
  const hint = hintText ? el('p', { class: 'hint', id: `${id}-hint` }, hintText) : undefined;
  const describedBy = [hint ? `${id}-hint` : undefined, `${id}-error`].filter(Boolean).join(' ');
  const mark = required ? el('span', { class: 'required' }, ' (required)') : undefined;
  const field = { name, kind, schema, required, error };

  if (kind === 'multi') {
    const choices = choicesOf(schema.items || {}) || [];
    const defaults = Array.isArray(schema.default) ? schema.default : [];
    const boxes = choices.map((choice, i) =>
      el(
        'label',
        { class: 'choice' },
        el('input', { type: 'checkbox', id: `${id}-${i}`, value: choice.value, checked: defaults.includes(choice.value) }),
        choice.label,
      ),
    );
    const bounds = [
      schema.minItems !== undefined ? `at least ${schema.minItems}` : '',
      schema.maxItems !== undefined ? `at most ${schema.maxItems}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    field.node = el(
      'fieldset',
      { class: 'field', 'data-field': name, 'aria-describedby': describedBy },
      el('legend', {}, label, mark, bounds ? el('span', { class: 'bounds' }, ` (choose ${bounds})`) : undefined),
      hint,
      el('div', { class: 'choices' }, boxes),
      error,
    );
    field.inputs = boxes.map((b) => b.querySelector('input'));
    field.read = () => {
      const picked = field.inputs.filter((i) => i.checked).map((i) => i.value);
      return picked.length || required ? picked : undefined;
    };
    field.check = () => {
      const n = field.inputs.filter((i) => i.checked).length;
      if (required && n === 0) return 'Choose at least one.';
      if (schema.minItems !== undefined && n > 0 && n < schema.minItems) return `Choose at least ${schema.minItems}.`;
      if (schema.maxItems !== undefined && n > schema.maxItems) return `Choose at most ${schema.maxItems}.`;
      return undefined;
    };
    field.focus = () => field.inputs[0] && field.inputs[0].focus();
    return field;
  }

  let input;
  if (kind === 'select') {
    const choices = choicesOf(schema);
    const options = choices.map((c) => el('option', { value: c.value, selected: schema.default === c.value }, c.label));
    const blank = schema.default === undefined ? el('option', { value: '' }, required ? 'Choose…' : '(none)') : undefined;
    input = el('select', { id, name, required }, blank, options);
  } else if (kind === 'boolean') {
    input = el('input', { id, name, type: 'checkbox', checked: schema.default === true });
  } else if (kind === 'number') {
    input = el('input', {
      id,
      name,
      type: 'number',
      inputmode: schema.type === 'integer' ? 'numeric' : 'decimal',
      required,
      min: schema.minimum,
      max: schema.maximum,
      step: schema.type === 'integer' ? '1' : 'any',
      value: typeof schema.default === 'number' ? String(schema.default) : undefined,
    });
  } else {
    const format = typeof schema.format === 'string' ? schema.format : undefined;
    input = el('input', {
      id,
      name,
      type: INPUT_TYPE[format] || 'text',
      required,
      minlength: schema.minLength,
      maxlength: schema.maxLength,
      pattern: typeof schema.pattern === 'string' ? schema.pattern : undefined,
      value: typeof schema.default === 'string' ? schema.default : undefined,
      autocomplete: format === 'email' ? 'email' : 'off',
    });
  }
  input.setAttribute('aria-describedby', describedBy);
  field.input = input;
  field.node =
    kind === 'boolean'
      ? el(
          'div',
          { class: 'field field-boolean', 'data-field': name },
          el('label', { for: id }, input, ' ', label, mark),
          hint,
          error,
        )
      : el('div', { class: 'field', 'data-field': name }, el('label', { for: id }, label, mark), hint, input, error);
  field.read = () => {
    if (kind === 'boolean') return input.checked;
    const raw = input.value;
    if (raw.trim() === '') return undefined;
    if (kind === 'number') return Number(raw);
    if (input.type === 'datetime-local') return new Date(raw).toISOString();
    return raw;
  };
  field.check = () => {
    if (!input.checkValidity()) return input.validationMessage;
    if (kind === 'number' && input.value !== '' && schema.type === 'integer' && !Number.isInteger(Number(input.value)))
      return 'Enter a whole number.';
    return undefined;
  };
  field.focus = () => input.focus();
  return field;
}

/** Shows (or clears, with undefined) a problem beside a field. */
export function showIssue(field, message) {
  field.error.textContent = message || '';
  const targets = field.inputs || [field.input];
  for (const target of targets) {
    if (message) target.setAttribute('aria-invalid', 'true');
    else target.removeAttribute('aria-invalid');
  }
  field.node.classList.toggle('invalid', Boolean(message));
}

/** Checks every field in the browser; returns the content to send, or undefined after marking what is wrong. */
export function collect(fields) {
  let firstBad;
  const content = {};
  for (const field of fields) {
    const problem = field.check();
    showIssue(field, problem);
    if (problem && !firstBad) firstBad = field;
    const value = field.read();
    if (value !== undefined) content[field.name] = value;
  }
  if (firstBad) {
    firstBad.focus();
    return undefined;
  }
  return content;
}
