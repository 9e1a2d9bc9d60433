/**
 * The terminal form: puts one question to the person at the terminal and returns their Answer.
 * Used by `mcpx call --elicit=prompt` and by `ask(q)` in `mcpx run`. Decline and cancel are explicit choices;
 * Ctrl-C (or Escape) at any point is cancel. All server text is sanitised before it is shown.
 */
import type { Readable, Writable } from 'node:stream';
import * as clack from '@clack/prompts';
import type { Answer, Question } from '../../../types.js';
import { sanitize, sanitizeLine } from '../sanitize.js';
import { fieldsOf, parseTyped, problemWith, type Field } from './fields.js';
import { checkContent } from '../../../elicitation/validate.js';
import { askSecret } from './secret.js';
import { askUrl } from './url.js';
import { onePrompt, type ClackIO } from './prompt-io.js';

export interface FormOptions {
  input: Readable;
  /** Where the form is drawn: stderr, so stdout stays the result's. */
  output: Writable;
  /** Opens a URL (url mode); asked for only after the person agreed. Absent: the URL is shown to open by hand. */
  openUrl?: (url: string) => Promise<boolean>;
  /** Stops the form (the question was answered elsewhere or expired): answers cancel. */
  signal?: AbortSignal;
  /** The person already chose to answer (the inbox's `a`): go straight to the fields. */
  answering?: boolean;
}

const CANCEL: Answer = { action: 'cancel' };

/** What the form needs of a question: a server's (with server and tool) or a script's own `ask(q)` (without). */
export type PromptQuestion = Pick<Question, 'message' | 'mode'> &
  Partial<Pick<Question, 'server' | 'tool' | 'requestedSchema' | 'url' | 'secret'>>;

/** Asks the question on the terminal; resolves with accept (content checked against the schema), decline or cancel. */
export async function promptForAnswer(question: PromptQuestion, options: FormOptions): Promise<Answer> {
  const io = { input: options.input, output: options.output, ...(options.signal ? { signal: options.signal } : {}) };
  const asker = question.server
    ? `${sanitizeLine(question.server)}${question.tool ? `.${sanitizeLine(question.tool)}` : ''}`
    : 'the script';
  clack.note(sanitize(question.message), `${asker} asks`, io);
  if (question.mode === 'url') return askUrl(question.url, options.openUrl, io);
  if (question.secret) return askSecret(question.requestedSchema, io);
  return askForm(question, io, options.answering === true);
}

const CANCELLED = Symbol('cancelled');
/** From this many fields on, the person may stop once every field left is optional or has a default. */
const LONG_FORM = 4;

async function askForm(question: PromptQuestion, io: ClackIO, answering = false): Promise<Answer> {
  const fields = fieldsOf(question.requestedSchema);
  const choice = answering
    ? 'accept'
    : await onePrompt(io, (io) =>
        clack.select({
          ...io,
          message: fields.length ? 'Answer this question?' : 'Your answer',
          options: [
            { value: 'accept', label: fields.length ? 'Answer' : 'Accept' },
            { value: 'decline', label: 'Decline', hint: 'explicitly no' },
            { value: 'cancel', label: 'Cancel', hint: 'dismiss without choosing' },
          ],
          initialValue: 'accept',
        }),
      );
  if (clack.isCancel(choice) || choice === 'cancel') return CANCEL;
  if (choice === 'decline') return { action: 'decline' };

  const content: Record<string, unknown> = {};
  let offered = false;
  for (const [index, field] of fields.entries()) {
    const rest = fields.slice(index);
    if (!offered && fields.length >= LONG_FORM && rest.length >= 2 && rest.every(canBeLeft)) {
      offered = true;
      const stop = await offerDefaults(rest, io);
      if (stop === CANCELLED) return CANCEL;
      if (stop) break;
    }
    const value = await askField(field, io);
    if (value === CANCELLED) return CANCEL;
    if (value !== undefined) content[field.name] = value;
  }
  // Each field was checked alone; the whole answer is checked once more (filling defaults), as the broker will.
  const check = checkContent(question.requestedSchema, content);
  if (!check.ok) {
    clack.log.error(check.issues.map((issue) => issue.message).join('\n'), io);
    return askForm(question, io);
  }
  return { action: 'accept', content: check.content };
}

/** A field the answer may go without: optional, or filled with its default. */
function canBeLeft(field: Field): boolean {
  return !field.required || field.defaultValue !== undefined;
}

/** Asks whether to fill in the fields left or take their defaults; true to take them. */
async function offerDefaults(rest: Field[], io: ClackIO): Promise<boolean | typeof CANCELLED> {
  const defaults = rest
    .filter((field) => field.defaultValue !== undefined)
    .map((field) => {
      const shown = field.kind === 'number' ? field.defaultValue : JSON.stringify(field.defaultValue);
      return `${field.label} = ${sanitizeLine(shown)}`;
    });
  const unset = rest.filter((field) => field.defaultValue === undefined).map((field) => field.label);
  const hint = [defaults.join(', '), unset.length ? `unset: ${unset.join(', ')}` : ''].filter(Boolean).join('; ');
  const choice = await onePrompt(io, (io) =>
    clack.select({
      ...io,
      message: `The ${rest.length} fields left are optional or have defaults`,
      options: [
        { value: 'fill', label: 'Fill them in' },
        { value: 'defaults', label: 'Accept the defaults for the rest', hint: sanitizeLine(hint, 200) },
      ],
      initialValue: 'fill',
    }),
  );
  if (clack.isCancel(choice)) return CANCELLED;
  return choice === 'defaults';
}

/** One field, re-asked until its value fits the schema. */
async function askField(field: Field, io: ClackIO): Promise<unknown> {
  const message = `${field.label}${field.required ? '' : ' (optional)'}${field.hint ? ` — ${field.hint}` : ''}`;
  switch (field.kind) {
    case 'text':
    case 'number': {
      const placeholder =
        field.defaultValue !== undefined
          ? `default: ${sanitizeLine(field.defaultValue)}`
          : field.kind === 'text'
            ? field.placeholder
            : field.integer
              ? 'a whole number'
              : 'a number';
      const typed = await onePrompt(io, (io) =>
        clack.text({
          ...io,
          message,
          ...(placeholder === undefined ? {} : { placeholder }),
          validate: (raw) => problemWith(field, parseTyped(field, raw)),
        }),
      );
      return clack.isCancel(typed) ? CANCELLED : parseTyped(field, typed);
    }
    case 'boolean': {
      if (field.required || field.defaultValue !== undefined) {
        const answer = await onePrompt(io, (io) => clack.confirm({ ...io, message, initialValue: field.defaultValue ?? false }));
        return clack.isCancel(answer) ? CANCELLED : answer;
      }
      // Optional with no default: "unset" is an answer of its own, not a silent No.
      const picked = await onePrompt(io, (io) =>
        clack.select({
          ...io,
          message,
          options: [
            { value: 'yes', label: 'Yes' },
            { value: 'no', label: 'No' },
            { value: '', label: '(leave unset)' },
          ],
          initialValue: 'no',
        }),
      );
      if (clack.isCancel(picked)) return CANCELLED;
      return picked === '' ? undefined : picked === 'yes';
    }
    case 'select': {
      const options = field.choices.map((c) => ({ value: c.value, label: c.label }));
      const skip = field.required ? [] : [{ value: '', label: '(leave empty)' }];
      const picked = await onePrompt(io, (io) =>
        clack.select({
          ...io,
          message,
          options: [...options, ...skip],
          ...(field.defaultValue === undefined ? {} : { initialValue: field.defaultValue }),
        }),
      );
      if (clack.isCancel(picked)) return CANCELLED;
      return picked === '' ? undefined : picked;
    }
    case 'multiselect': {
      for (;;) {
        const picked = await onePrompt(io, (io) =>
          clack.multiselect({
            ...io,
            message,
            options: field.choices.map((c) => ({ value: c.value, label: c.label })),
            required: false,
            ...(field.defaultValue === undefined ? {} : { initialValues: field.defaultValue }),
          }),
        );
        if (clack.isCancel(picked)) return CANCELLED;
        const value = picked.length === 0 && !field.required ? undefined : picked;
        const problem = problemWith(field, value);
        if (!problem) return value;
        clack.log.error(`${field.label}: ${problem}`, io);
      }
    }
  }
}
