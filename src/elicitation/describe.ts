/**
 * The message of a call that stopped on a question (§5.1 of the design record, as shipped): what is asked, the
 * schema, when it expires, and the exact commands that answer it and collect the result. One text for the CLI's
 * message and the REST body's `text`. The caller gives the time and the zone; server text never leaves here with
 * control characters (a surface may pass its own, stricter cleaning).
 */
import type { ElicitationSchema, ElicitMode, SecretRef } from '../types.js';

/** A question as the message shows it. */
export interface DescribedQuestion {
  id: string;
  mode: ElicitMode;
  message: string;
  requestedSchema?: ElicitationSchema | undefined;
  url?: string | undefined;
  expiresAt: number;
  /** Other calls share the server, so the question may belong to one of them. */
  ambiguous?: boolean;
  /** mcpx's own question for a secret credential: answered on stdin, kept in the secret store. */
  secret?: SecretRef;
  /** The session the question belongs to (a sign-in another session's call asked and this call joined). */
  session?: string;
}

export interface InputRequiredView {
  server: string;
  tool: string;
  questions: DescribedQuestion[];
  /** The task holding the call; without it (or with `inline`) the call cannot outlive the command. */
  task?: string;
  /** No daemon holds the call (daemon.inline). */
  inline?: boolean;
  /** The caller's session: a question of another session is answered with --all (as an operator). */
  session?: string;
  /** Replaces the first line (after `mcpx: `) and the closing paragraph: for a question that is not a server's. */
  headline?: string;
  tail?: string;
  /**
   * Print commands that work pasted in another shell and directory: the session (MCPX_SESSION_ID, which the default
   * fingerprint of config + directory would not match elsewhere) and the config file by its absolute path. `row`
   * leaves the answer rows as they work here and adds an `anywhere` row with the pasteable commands.
   */
  pasteable?: { configPath?: string; layout?: 'inline' | 'row' };
}

/** How server text is cleaned: `text` may span lines, `line` is one line cut at `maxLength`. */
export interface TextCleaner {
  text(value: unknown): string;
  line(value: unknown, maxLength?: number): string;
}

export interface DescribeOptions {
  now: number;
  /** The UTC offset, in minutes east, at an instant (deadlines are printed in that zone). Default: UTC. */
  utcOffsetMinutes?: (at: number) => number;
  /** Default: `stripControls`, with lines joined and cut. */
  clean?: TextCleaner;
}

// ESC-introduced sequences and their 8-bit C1 forms (CSI, string sequences ended by BEL/ST, two-byte escapes),
// then any control character left.
const ESCAPES =
  /(?:\u001b\[|\u009b)[\u0020-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text with no escape sequences or control characters (newlines and tabs stay). */
export function stripControls(value: unknown): string {
  return String(value ?? '')
    .replace(/\r\n?/g, '\n')
    .replace(ESCAPES, '')
    .replace(CONTROLS, '');
}

const plain: TextCleaner = {
  text: (value) => stripControls(value).trim(),
  line: (value, maxLength = 200) => {
    const out = stripControls(value)
      .replace(/\s*\n\s*/g, ' ')
      .trim();
    return out.length > maxLength ? `${out.slice(0, maxLength - 1)}…` : out;
  },
};

const LABEL_WIDTH = 9;

/** The §5.1 message, newline-terminated. */
export function describeInputRequired(view: InputRequiredView, options: DescribeOptions): string {
  const clean = options.clean ?? plain;
  const offset = options.utcOffsetMinutes ?? (() => 0);
  const name = `${clean.line(view.server)}.${clean.line(view.tool)}`;
  const blocks = view.questions.map((q) =>
    describeQuestion(
      q,
      options.now,
      offset,
      clean,
      view.session !== undefined && q.session !== undefined && q.session !== view.session,
      pasteFlags(view),
    ),
  );
  // The same session and config as the answer commands, so the line works pasted in another shell and directory.
  const { lead, config } = pasteFlags(view);
  const tail =
    view.tail ??
    (view.task && !view.inline
      ? `The call keeps running until it is answered or expires; collect its result with: ${lead}mcpx task result ${view.task}${config}`
      : 'No daemon holds this call (daemon.inline): it cannot outlive this command, so it ends when mcpx exits; run it again with a daemon, or answer it here with --elicit=prompt.');
  const headline = view.headline ?? `${name} is waiting for input and nothing here can answer it`;
  return `mcpx: ${headline}.\n\n${blocks.join('\n\n')}\n\n${tail}\n`;
}

function describeQuestion(
  q: DescribedQuestion,
  now: number,
  offset: (at: number) => number,
  clean: TextCleaner,
  elsewhere: boolean,
  paste: PasteFlags,
): string {
  const lines: string[] = [];
  lines.push(...row('asks', clean.text(q.message) || '(no message)'));
  if (q.mode === 'url') {
    const domain = domainOf(q.url);
    lines.push(...row('url', `${clean.line(q.url ?? '', 2000)}${domain ? ` (${clean.line(domain)})` : ''}`));
  } else {
    lines.push(...schemaRows(q.requestedSchema, clean));
  }
  lines.push(...row('expires', `${isoAt(q.expiresAt, offset(q.expiresAt))} (${timeLeft(q.expiresAt - now)})`));
  if (q.ambiguous)
    lines.push(...row('note', 'other calls share this server; this question may belong to one of them (ambiguous)'));
  if (q.secret)
    lines.push(
      ...row('secret', 'kept in the secret store, never recorded; give it on stdin, not on the command line (shell history)'),
    );
  // Another session's question (its call's sign-in, which this call waits on too): only an operator answers it here.
  if (elsewhere)
    lines.push(...row('note', 'asked by a call in another session, which this call waits on; answering here needs --all'));
  // An operator (--all) needs no session; the question's own session acts in it.
  // The id stays right after the verb (scripts and people look for `mcpx elicit answer elc-…`); --config goes last.
  const flags = elsewhere ? '--all ' : '';
  const commands = (lead: string, config: string): string =>
    `${lead}${respondWith(q, clean, flags, config)}\n${lead}mcpx elicit decline ${flags}${q.id}${config} | ${lead}mcpx elicit cancel ${flags}${q.id}${config}`;
  const lead = elsewhere ? '' : paste.lead;
  if (!paste.asRow) return [...lines, ...row('answer', commands(lead, paste.config))].join('\n');
  return [...lines, ...row('answer', commands('', '')), ...row('anywhere', commands(lead, paste.config))].join('\n');
}

/** A schema longer than this (several terminal lines of JSON) is shown as its fields, one a line. */
const INLINE_SCHEMA_MAX = 400;

function schemaRows(schema: ElicitationSchema | undefined, clean: TextCleaner): string[] {
  const json = stableJson(schema ?? { type: 'object', properties: {} });
  if (json.length <= INLINE_SCHEMA_MAX || !schema) return row('schema', clean.line(json, 4000));
  return row('fields', fieldLines(schema, clean).join('\n'));
}

/** Each field as the terminal form asks it: name, type or choices, required or default, and what it is. */
function fieldLines(schema: ElicitationSchema, clean: TextCleaner): string[] {
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, value]) => {
    const p = value as Record<string, unknown>;
    const facts = [
      fieldType(p),
      required.has(name) ? 'required' : 'optional',
      ...(p.default !== undefined ? [`default ${JSON.stringify(p.default)}`] : []),
      ...(typeof p.format === 'string' ? [`format ${p.format}`] : []),
      ...(typeof p.minLength === 'number' ? [`at least ${p.minLength} characters`] : []),
      ...(typeof p.maxLength === 'number' ? [`at most ${p.maxLength} characters`] : []),
      ...(typeof p.minimum === 'number' ? [`>= ${p.minimum}`] : []),
      ...(typeof p.maximum === 'number' ? [`<= ${p.maximum}`] : []),
    ];
    const what = [p.title, p.description].filter((t) => typeof t === 'string' && t.trim()).map((t) => clean.line(t, 300));
    return { name: clean.line(name, 60), facts: clean.line(facts.join(', '), 400), what: what.join(': ') };
  });
  const width = Math.max(...fields.map((f) => f.name.length));
  return fields.map((f) => `${f.name.padEnd(width)}  ${f.facts}${f.what ? `  ${f.what}` : ''}`);
}

function fieldType(p: Record<string, unknown>): string {
  const choices = (p.oneOf ?? p.anyOf) as Array<{ const?: unknown }> | undefined;
  if (Array.isArray(choices) && choices.every((c) => c && c.const !== undefined))
    return `one of ${choices.map((c) => JSON.stringify(c.const)).join(' | ')}`;
  if (Array.isArray(p.enum)) return `one of ${p.enum.map((v) => JSON.stringify(v)).join(' | ')}`;
  const items = p.items as Record<string, unknown> | undefined;
  if (p.type === 'array' && items) return `list of ${fieldType(items).replace(/^one of /, 'any of ')}`;
  return typeof p.type === 'string' ? p.type : 'any';
}

interface PasteFlags {
  /** `MCPX_SESSION_ID=… ` before the command, or nothing. */
  lead: string;
  /** ` --config <absolute path>`, or nothing: it goes after the id. */
  config: string;
  /** In their own `anywhere` row, after the answer rows as they work here. */
  asRow?: boolean;
}

function pasteFlags(view: Pick<InputRequiredView, 'session' | 'pasteable'>): PasteFlags {
  if (!view.pasteable) return { lead: '', config: '' };
  const { configPath, layout } = view.pasteable;
  return {
    lead: view.session ? `MCPX_SESSION_ID=${shellWord(view.session)} ` : '',
    config: configPath ? ` --config ${shellWord(configPath)}` : '',
    ...(layout === 'row' ? { asRow: true } : {}),
  };
}

function row(label: string, value: string): string[] {
  const [first = '', ...rest] = value.split('\n');
  return [`  ${label.padEnd(LABEL_WIDTH)}${first}`, ...rest.map((line) => `  ${' '.repeat(LABEL_WIDTH)}${line}`)];
}

function domainOf(url: string | undefined): string | undefined {
  try {
    return url ? new URL(url).hostname : undefined;
  } catch {
    return undefined;
  }
}

/** The command that answers a question, with example content built from its schema (none in url mode). */
export function respondWith(
  q: Pick<DescribedQuestion, 'id' | 'mode' | 'requestedSchema' | 'secret'>,
  clean: TextCleaner = plain,
  /** `--all ` for another session's question. */
  flags = '',
  /** ` --config <file>`, after the id and the content. */
  config = '',
): string {
  if (q.mode === 'url') return `mcpx elicit answer ${flags}${q.id}${config}`;
  if (q.secret)
    return `mcpx elicit answer ${flags}${q.id}${config} -   (then type ${JSON.stringify(exampleContent(q.requestedSchema, clean))} and Ctrl-D)`;
  return `mcpx elicit answer ${flags}${q.id} ${shellQuote(JSON.stringify(exampleContent(q.requestedSchema, clean)))}${config}`;
}

/** JSON with keys sorted, so the same schema always prints the same way. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** A content template for the answer command: the required fields (all, when none is required) with placeholder values. */
export function exampleContent(schema: ElicitationSchema | undefined, clean: TextCleaner = plain): Record<string, unknown> {
  const properties = schema?.properties ?? {};
  const required = schema?.required?.length ? schema.required : Object.keys(properties);
  const out: Record<string, unknown> = {};
  for (const name of required) {
    const p = (properties[name] ?? {}) as Record<string, unknown>;
    out[clean.line(name)] = exampleValue(p);
  }
  return out;
}

function exampleValue(p: Record<string, unknown>): unknown {
  if (p.default !== undefined) return p.default;
  const choices = (p.oneOf ?? p.anyOf) as Array<{ const?: unknown }> | undefined;
  if (Array.isArray(choices) && choices[0]?.const !== undefined) return choices[0].const;
  if (Array.isArray(p.enum) && p.enum.length) return p.enum[0];
  switch (p.type) {
    case 'number':
    case 'integer':
      return typeof p.minimum === 'number' ? p.minimum : 0;
    case 'boolean':
      return true;
    case 'array': {
      const items = (p.items ?? {}) as Record<string, unknown>;
      const first = exampleValue(items);
      return first === '...' ? [] : [first];
    }
    default:
      return '...';
  }
}

/** One shell word: single-quoted, with embedded single quotes closed and escaped. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A word for the shell, quoted only when it needs to be (a session id or a plain path reads better bare). */
export function shellWord(text: string): string {
  return /^[\w./:@%+,=-]+$/.test(text) ? text : shellQuote(text);
}

/** RFC 3339 to the second in the zone `offsetMinutes` east of UTC: 2026-09-30T22:31:37-05:00, or ...Z at offset 0. */
export function isoAt(ms: number, offsetMinutes: number): string {
  const d = new Date(ms + offsetMinutes * 60_000);
  const pad = (n: number) => String(Math.trunc(Math.abs(n))).padStart(2, '0');
  const zone =
    offsetMinutes === 0 ? 'Z' : `${offsetMinutes > 0 ? '+' : '-'}${pad(offsetMinutes / 60)}:${pad(offsetMinutes % 60)}`;
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${zone}`;
}

/** "2m0s from now", "1h0m5s from now", or "expired". */
export function timeLeft(ms: number): string {
  if (ms <= 0) return 'expired';
  return `${duration(ms)} from now`;
}

/** A duration the way Go prints one, to whole seconds: 45s, 2m0s, 1h2m3s. */
export function duration(ms: number): string {
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}
