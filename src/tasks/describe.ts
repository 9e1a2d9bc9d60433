/**
 * The words for a call stopped at a question (design §5.1 as shipped): what is asked, the schema, the deadline
 * with time left, and the exact commands that answer it. One text for the CLI message and the REST body.
 */
import type { ElicitRequest } from '../broker/types.js';
import type { PrimitiveSchema } from '../types.js';

/** Strips escape sequences and other control characters from server-supplied text (newlines and tabs stay). */
export function sanitize(text: string): string {
  return text
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

function exampleValue(property: PrimitiveSchema): unknown {
  if (property.default !== undefined) return property.default;
  const options = (property.enum ?? (property.oneOf as { const?: unknown }[] | undefined)?.map((o) => o.const)) as unknown[] | undefined;
  if (options?.length) return options[0];
  switch (property.type) {
    case 'number':
    case 'integer':
      return typeof property.minimum === 'number' ? property.minimum : 0;
    case 'boolean':
      return true;
    case 'array':
      return [];
    default:
      return '...';
  }
}

/** The command that answers a question, with example content built from its schema. */
export function respondWith(request: Pick<ElicitRequest, 'id' | 'mode' | 'requestedSchema'>): string {
  if (request.mode === 'url' || !request.requestedSchema) return `mcpx elicit answer ${request.id}`;
  const properties = request.requestedSchema.properties ?? {};
  const required = request.requestedSchema.required?.length ? request.requestedSchema.required : Object.keys(properties);
  const example: Record<string, unknown> = {};
  for (const name of required) {
    const property = properties[name];
    if (property) example[name] = exampleValue(property);
  }
  return `mcpx elicit answer ${request.id} ${shellQuote(JSON.stringify(example))}`;
}

/** `2m0s`, `45s`, `1h2m3s`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h ? `${h}h${m}m${s}s` : m ? `${m}m${s}s` : `${s}s`;
}

export interface DescribeInput {
  server: string;
  tool: string;
  task?: string;
  questions: Array<Pick<ElicitRequest, 'id' | 'mode' | 'message' | 'requestedSchema' | 'url' | 'expiresAt'> & { ambiguous?: boolean }>;
  now: number;
  /** No daemon holds the call (daemon.inline): it ends with the command. */
  inline?: boolean;
}

export function describeInputRequired(input: DescribeInput): string {
  const lines = [`mcpx: ${input.server}.${input.tool} is waiting for input and nothing here can answer it.`];
  for (const q of input.questions) {
    lines.push('');
    lines.push(`  asks     ${sanitize(q.message).replace(/\n/g, '\n           ')}`);
    if (q.mode === 'url' && q.url) lines.push(`  open     ${sanitize(q.url)}`);
    if (q.requestedSchema) lines.push(`  schema   ${sanitize(JSON.stringify(q.requestedSchema))}`);
    lines.push(`  expires  ${new Date(q.expiresAt).toISOString()} (${formatDuration(q.expiresAt - input.now)} from now)`);
    lines.push(`  answer   ${respondWith(q)}`);
    lines.push(`           mcpx elicit decline ${q.id} | mcpx elicit cancel ${q.id}`);
    if (q.ambiguous) lines.push(`  note     other calls share this server's connection, so this question may belong to one of them (ambiguous)`);
  }
  lines.push('');
  if (input.inline) {
    lines.push('No daemon holds this call (daemon.inline): it cannot outlive this command, so answer it now or run the call again once a daemon can start.');
  } else if (input.task) {
    lines.push(`The call keeps running until it is answered or expires; collect its result with: mcpx task result ${input.task}`);
  }
  return lines.join('\n') + '\n';
}
