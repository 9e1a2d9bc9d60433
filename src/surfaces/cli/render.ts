/**
 * The message of a call that stopped on a question (§5.1 of the design record, as shipped): what is asked, the
 * schema, when it expires, and the exact commands that answer it and collect the result.
 */
import type { ElicitationSchema, ElicitMode } from '../../types.js';
import { sanitize, sanitizeLine } from './sanitize.js';

/** A question as the CLI shows it: the shared Question fields it needs, plus its deadline. */
export interface WaitingQuestion {
  id: string;
  server: string;
  tool: string;
  mode: ElicitMode;
  message: string;
  requestedSchema?: ElicitationSchema;
  url?: string;
  expiresAt: number;
  /** Other calls share the server, so the question may belong to one of them. */
  ambiguous?: boolean;
}

export interface InputRequiredView {
  server: string;
  tool: string;
  questions: WaitingQuestion[];
  /** The task holding the call; absent when no daemon holds it (the call dies with the command). */
  task?: string;
  now: number;
}

const LABEL_WIDTH = 9;

/** The §5.1 message, newline-terminated. Server text is sanitised. */
export function renderInputRequired(view: InputRequiredView): string {
  const name = `${sanitizeLine(view.server)}.${sanitizeLine(view.tool)}`;
  const blocks = view.questions.map((q) => renderQuestion(q, view.now));
  const tail = view.task
    ? `The call keeps running until it is answered or expires; collect its result with: mcpx task result ${view.task}`
    : 'No daemon holds this call (daemon.inline): it cannot outlive this command, so it ends when mcpx exits; run it again with a daemon, or answer it here with --elicit=prompt.';
  return `mcpx: ${name} is waiting for input and nothing here can answer it.\n\n${blocks.join('\n\n')}\n\n${tail}\n`;
}

function renderQuestion(q: WaitingQuestion, now: number): string {
  const lines: string[] = [];
  lines.push(...row('asks', sanitize(q.message) || '(no message)'));
  if (q.mode === 'url') {
    lines.push(...row('url', `${sanitizeLine(q.url ?? '', 2000)}${domainOf(q.url) ? ` (${domainOf(q.url)})` : ''}`));
  } else {
    lines.push(...row('schema', sanitizeLine(stableJson(q.requestedSchema ?? { type: 'object', properties: {} }), 4000)));
  }
  lines.push(...row('expires', `${localIso(q.expiresAt)} (${timeLeft(q.expiresAt - now)})`));
  if (q.ambiguous) lines.push(...row('note', 'other calls share this server; this question may belong to one of them (ambiguous)'));
  const example = q.mode === 'url' ? '' : ` ${shellQuote(JSON.stringify(exampleContent(q.requestedSchema)))}`;
  lines.push(...row('answer', `mcpx elicit answer ${q.id}${example}\nmcpx elicit decline ${q.id} | mcpx elicit cancel ${q.id}`));
  return lines.join('\n');
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

/** JSON with keys sorted, so the same schema always prints the same way. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

/** A content template for the answer command: the required fields (all, when none is required) with placeholder values. */
export function exampleContent(schema: ElicitationSchema | undefined): Record<string, unknown> {
  const properties = schema?.properties ?? {};
  const required = schema?.required?.length ? schema.required : Object.keys(properties);
  const out: Record<string, unknown> = {};
  for (const name of required) {
    const p = (properties[name] ?? {}) as Record<string, unknown>;
    out[sanitizeLine(name)] = exampleValue(p);
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

/** Local time with its UTC offset, RFC 3339: 2026-09-30T22:31:37-05:00. */
export function localIso(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(Math.trunc(Math.abs(n))).padStart(2, '0');
  const offset = -d.getTimezoneOffset();
  const zone = offset === 0 ? 'Z' : `${offset > 0 ? '+' : '-'}${pad(offset / 60)}:${pad(offset % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${zone}`;
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
