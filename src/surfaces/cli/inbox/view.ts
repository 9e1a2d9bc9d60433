/**
 * What the terminal inbox draws, as plain functions of its state: a loud header badge, the list of waiting
 * questions, and one question's detail (its form fields, or its URL and domain). Every piece of server text is
 * sanitised here, so nothing a server sends can move the cursor or rewrite the screen.
 */
import type { ShownQuestion } from '../../backend/backend.js';
import { fieldsOf, type Field } from '../form/fields.js';
import { duration } from '../render.js';
import { sanitize, sanitizeLine } from '../sanitize.js';

export interface InboxState {
  questions: ShownQuestion[];
  selected: number;
  view: 'list' | 'detail';
  /** One line under the header: what just happened (answered, refused, could not open). */
  status?: string | undefined;
  /** Where questions come from: the daemon's events, or the store polled (no daemon). */
  source: 'daemon' | 'store';
  session?: string;
}

const ACCENT = '\u001b[1;35m';
const DIM = '\u001b[2m';
const INVERSE = '\u001b[7m';
const RESET = '\u001b[0m';

/** "● 2 questions", or '' when nothing waits: the badge at the top of the inbox. */
export function headerBadge(waiting: number): string {
  return waiting > 0 ? `● ${waiting} question${waiting === 1 ? '' : 's'}` : '';
}

/** The screen for the state, as lines no wider than `columns` (escape codes for colour are ours, never the server's). */
export function renderInbox(state: InboxState, now: number, columns: number): string[] {
  const waiting = state.questions.length;
  const badge = headerBadge(waiting);
  const source = state.source === 'daemon' ? 'following the daemon' : 'no daemon: reading the store';
  const scope = state.session ? ` · session ${sanitizeLine(state.session, 40)}` : '';
  const lines = [
    `${badge ? `${ACCENT}${badge}${RESET}` : `${DIM}no questions waiting${RESET}`}   ${DIM}mcpx inbox · ${source}${scope}${RESET}`,
    state.status ? fit(state.status, columns) : '',
  ];
  const current = state.questions[state.selected];
  if (state.view === 'detail' && current) return [...lines, ...renderDetail(current, now, columns)];
  if (!waiting) return [...lines, '', `${DIM}Questions appear here as servers ask them. q quits.${RESET}`];
  state.questions.forEach((q, i) => {
    const left = q.expiresAt > now ? duration(q.expiresAt - now) : 'expiring';
    const row = fit(
      `${i === state.selected ? '›' : ' '} ${sanitizeLine(q.server)}.${sanitizeLine(q.tool)}  ${q.mode}  ${left}  ${sanitizeLine(q.message)}`,
      columns,
    );
    lines.push(i === state.selected ? `${INVERSE}${row}${RESET}` : row);
  });
  lines.push('', `${DIM}↑/↓ choose · enter opens · a answer · d decline · c cancel · q quits${RESET}`);
  return lines;
}

function renderDetail(q: ShownQuestion, now: number, columns: number): string[] {
  const left = q.expiresAt > now ? `${duration(q.expiresAt - now)} left` : 'expiring';
  const lines = [
    fit(`${sanitizeLine(q.server)}.${sanitizeLine(q.tool)} asks (${q.mode}, ${left}, ${q.id})`, columns),
    '',
    ...sanitize(q.message)
      .split('\n')
      .map((line) => `  ${fit(line, columns - 2)}`),
    '',
  ];
  if (q.mode === 'url') {
    const url = sanitizeLine(q.url ?? '', 2000);
    let domain = '(not a URL)';
    try {
      domain = sanitizeLine(new URL(q.url ?? '').hostname); // punycode: a look-alike domain shows as what it is
    } catch {
      // shown as not a URL
    }
    lines.push(
      `  URL     ${fit(url, columns - 10)}`,
      `  domain  ${domain}`,
      '',
      `${DIM}o opens it in your browser · a accept (done) · d decline · c cancel · esc back${RESET}`,
    );
    return lines;
  }
  const fields = fieldsOf(q.requestedSchema);
  if (fields.length) lines.push('  fields');
  for (const field of fields)
    lines.push(
      fit(
        `    ${field.label}${field.required ? '' : ' (optional)'}  ${describeField(field)}${field.hint ? ` — ${field.hint}` : ''}`,
        columns,
      ),
    );
  if (q.ambiguous)
    lines.push('', '  note: this question cannot be tied to one call for certain (other calls share the connection)');
  lines.push('', `${DIM}a answer (fills the form) · d decline · c cancel · esc back${RESET}`);
  return lines;
}

function describeField(field: Field): string {
  switch (field.kind) {
    case 'select':
    case 'multiselect':
      return `${field.kind === 'select' ? 'one of' : 'any of'} ${field.choices.map((c) => c.label).join(' / ')}`;
    case 'number':
      return field.integer ? 'whole number' : 'number';
    case 'boolean':
      return 'yes / no';
    default:
      return field.placeholder ? `text (${field.placeholder})` : 'text';
  }
}

function fit(text: string, columns: number): string {
  return text.length > columns ? `${text.slice(0, Math.max(1, columns - 1))}…` : text;
}
