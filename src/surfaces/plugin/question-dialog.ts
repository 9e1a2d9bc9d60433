/**
 * A form question as opencode's own question dialog. A server plugin has no form API (ToolContext.ask is a yes/no
 * permission prompt; DialogPrompt belongs to TUI plugins), so the dialog that collects typed values is opencode's
 * built-in `question` tool: one question per field, then "Accept / Decline". The plugin prepares the questions,
 * the agent calls the tool, the plugin puts its exact questions in place (tool.execute.before), and the person's
 * reply goes to the broker from the plugin (the `question.replied` event): the agent never relays the values.
 */
import { stripControls } from '../../elicitation/describe.js';
import type { Answer, ElicitationSchema, PrimitiveSchema } from '../../types.js';

/** opencode's QuestionInfo (@opencode-ai/sdk v2: one question of a `question` tool call). */
export interface DialogQuestion {
  question: string;
  header: string;
  options: Array<{ label: string; description: string }>;
  multiple?: boolean;
  custom?: boolean;
}

interface DialogField {
  name: string;
  kind: 'text' | 'number' | 'boolean' | 'select' | 'multiselect';
  required: boolean;
  /** label shown -> value sent, for select and multiselect. */
  choices?: Map<string, string>;
}

const LEAVE_EMPTY = 'Leave empty';
const ACCEPT = 'Accept';
const DECLINE = 'Decline';
/** The header of the last question, naming the question it answers: how a `question` call is recognised. */
const MARKER = /^mcpx (elc-[0-9a-f]{16})$/;

export const dialogMarker = (id: string): string => `mcpx ${id}`;

/** The question id a `question` call is for (from its last question's header), if it is one of ours. */
export function dialogFor(questions: unknown): string | undefined {
  if (!Array.isArray(questions) || !questions.length) return undefined;
  const header = (questions[questions.length - 1] as { header?: unknown } | undefined)?.header;
  return typeof header === 'string' ? MARKER.exec(header)?.[1] : undefined;
}

export interface FormDialog {
  questions: DialogQuestion[];
  /** The answer the person's reply gives (one list of chosen labels or typed text per question). */
  answerOf(replies: ReadonlyArray<ReadonlyArray<string>>): Answer | { problem: string };
}

/** The dialog for a form question: a question per field, then Accept / Decline (dismissing it cancels). */
export function formDialog(q: {
  id: string;
  server: string;
  message: string;
  requestedSchema?: ElicitationSchema | undefined;
}): FormDialog {
  const required = new Set(q.requestedSchema?.required ?? []);
  const fields: DialogField[] = [];
  const questions: DialogQuestion[] = [];
  for (const [name, schema] of Object.entries(q.requestedSchema?.properties ?? {})) {
    const { field, question } = fieldQuestion(name, schema ?? {}, required.has(name));
    fields.push(field);
    questions.push(question);
  }
  const server = stripControls(q.server);
  questions.push({
    question: `${server} (via mcpx) asks: ${stripControls(q.message)}`.slice(0, 1000),
    header: dialogMarker(q.id),
    options: [
      { label: ACCEPT, description: `send these answers to ${server}` },
      { label: DECLINE, description: 'answer no: send nothing' },
    ],
    custom: false,
  });
  return {
    questions,
    answerOf(replies) {
      const verdict = replies[fields.length]?.[0];
      if (verdict === DECLINE) return { action: 'decline' };
      if (verdict !== ACCEPT) return { action: 'cancel' };
      const content: Record<string, unknown> = {};
      for (const [i, field] of fields.entries()) {
        const picked = (replies[i] ?? []).map((text) => text.trim()).filter((text) => text !== '' && text !== LEAVE_EMPTY);
        if (!picked.length) {
          if (field.required) return { problem: `${field.name} is required` };
          continue;
        }
        const parsed = valueOf(field, picked);
        if ('problem' in parsed) return parsed;
        content[field.name] = parsed.value;
      }
      return { action: 'accept', content };
    },
  };
}

function valueOf(field: DialogField, picked: string[]): { value: unknown } | { problem: string } {
  const first = picked[0]!;
  switch (field.kind) {
    case 'boolean':
      return first === 'Yes' || first === 'No'
        ? { value: first === 'Yes' }
        : { problem: `${field.name}: expected Yes or No, got ${JSON.stringify(first)}` };
    case 'number': {
      const n = Number(first);
      return Number.isNaN(n) ? { problem: `${field.name}: expected a number, got ${JSON.stringify(first)}` } : { value: n };
    }
    case 'select': {
      const value = field.choices?.get(first);
      return value === undefined ? { problem: `${field.name}: ${JSON.stringify(first)} is not one of the choices` } : { value };
    }
    case 'multiselect': {
      const values = picked.map((label) => field.choices?.get(label));
      return values.every((v) => v !== undefined)
        ? { value: values }
        : { problem: `${field.name}: a choice is not one of the choices` };
    }
    default:
      return { value: first };
  }
}

function fieldQuestion(
  name: string,
  schema: PrimitiveSchema,
  required: boolean,
): { field: DialogField; question: DialogQuestion } {
  const title = stripControls(schema.title ?? name);
  const description = schema.description === undefined ? '' : stripControls(schema.description);
  const text = description && description !== title ? `${title}: ${description}` : title;
  const header = title.slice(0, 30);
  const optional = required ? [] : [{ label: LEAVE_EMPTY, description: 'optional: send no value' }];
  const fallback = schema.default === undefined ? [] : [{ label: String(schema.default as string), description: 'the default' }];
  const single = choicesOf(schema);
  if (single) {
    return {
      field: { name, kind: 'select', required, choices: single },
      question: {
        question: text,
        header,
        options: [...[...single.keys()].map((label) => ({ label, description: single.get(label)! })), ...optional],
        custom: false,
      },
    };
  }
  if (schema.type === 'array') {
    const choices = choicesOf((schema.items ?? {}) as Record<string, unknown>) ?? new Map<string, string>();
    return {
      field: { name, kind: 'multiselect', required, choices },
      question: {
        question: text,
        header,
        options: [...choices.keys()].map((label) => ({ label, description: choices.get(label)! })),
        multiple: true,
        custom: false,
      },
    };
  }
  if (schema.type === 'boolean') {
    const yesNo = [
      { label: 'Yes', description: schema.default === true ? 'the default' : 'true' },
      { label: 'No', description: schema.default === false ? 'the default' : 'false' },
    ];
    return {
      field: { name, kind: 'boolean', required },
      question: { question: text, header, options: [...yesNo, ...optional], custom: false },
    };
  }
  const kind = schema.type === 'number' || schema.type === 'integer' ? 'number' : 'text';
  return {
    field: { name, kind, required },
    question: { question: `${text} (type your answer)`, header, options: [...fallback, ...optional], custom: true },
  };
}

/** label -> value for an enum: `oneOf`/`anyOf` of `{const, title}`, or `enum` (with legacy `enumNames`). */
function choicesOf(schema: Record<string, unknown>): Map<string, string> | undefined {
  const titled = (schema.oneOf ?? schema.anyOf) as Array<{ const?: unknown; title?: unknown }> | undefined;
  if (Array.isArray(titled)) {
    return new Map(
      titled.filter((b) => typeof b?.const === 'string').map((b) => [stripControls(b.title ?? b.const), b.const as string]),
    );
  }
  if (!Array.isArray(schema.enum)) return undefined;
  const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : [];
  return new Map(
    schema.enum.filter((v): v is string => typeof v === 'string').map((value, i) => [stripControls(names[i] ?? value), value]),
  );
}
