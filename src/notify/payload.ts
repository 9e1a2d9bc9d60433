/**
 * What a notification says about a question: its id, who asked (server, tool), the message, the fields asked for,
 * the deadline and where to answer. Never an answer's content (a secret field, a credential), only its action.
 */
import { respondWith } from '../elicitation/describe.js';
import { sanitize, sanitizeLine } from '../elicitation/sanitize.js';
import type { ElicitRequest, StoredAnswer } from '../broker/index.js';
import type { NotifyWhen } from '../config/index.js';

/** `test`: the sample `mcpx notify test` sends. */
export type NotifyEvent = NotifyWhen | 'test';

export interface NotifyField {
  name: string;
  type: string;
  required: boolean;
  title?: string;
}

/** The JSON a webhook gets as its body and a command on its stdin. */
export interface NotifyPayload {
  event: NotifyEvent;
  id: string;
  server: string;
  tool: string;
  session: string;
  mode: 'form' | 'url';
  message: string;
  fields: NotifyField[];
  /** url mode: the host the page is on (the full URL may carry a token). */
  urlDomain?: string;
  /** When the question stops waiting (ISO 8601) and the same in ms since the epoch. */
  deadline: string;
  expiresAt: number;
  /** The command that answers it, with example content. */
  answerWith: string;
  /** The web inbox, where it is reachable from here (MCPX_INBOX_URL, or the daemon's loopback port). */
  link?: string;
  /** answered: how, and by which surface; never what. */
  answer?: { action: StoredAnswer['action']; by: StoredAnswer['by'] };
  sentAt: string;
}

export function payloadOf(
  event: NotifyEvent,
  request: ElicitRequest,
  options: { now: number; link?: string | undefined; answer?: StoredAnswer | undefined },
): NotifyPayload {
  const domain = request.mode === 'url' && request.url ? domainOf(request.url) : undefined;
  return {
    event,
    id: request.id,
    server: request.server,
    tool: request.tool,
    session: request.session,
    mode: request.mode,
    message: sanitize(request.message, { maxLength: 2000 }),
    fields: fieldsOf(request),
    ...(domain ? { urlDomain: domain } : {}),
    deadline: new Date(request.expiresAt).toISOString(),
    expiresAt: request.expiresAt,
    answerWith: respondWith(request),
    ...(options.link ? { link: options.link } : {}),
    ...(options.answer ? { answer: { action: options.answer.action, by: options.answer.by } } : {}),
    sentAt: new Date(options.now).toISOString(),
  };
}

/** A one-line headline and the lines under it, for a chat message or a desktop notification. */
export function summaryOf(payload: NotifyPayload): { title: string; body: string } {
  const who = `${sanitizeLine(payload.server, 60)} (${sanitizeLine(payload.tool, 60)})`;
  const title =
    payload.event === 'answered'
      ? `mcpx: ${payload.id} answered ${payload.answer?.action ?? ''} by ${payload.answer?.by ?? 'someone'}`
      : payload.event === 'expired'
        ? `mcpx: ${payload.id} expired unanswered`
        : `mcpx: ${who} asks${payload.event === 'test' ? ' (a test)' : ''}`;
  const fields = payload.fields.length ? `fields: ${payload.fields.map((f) => f.name).join(', ')}` : '';
  const lines = [
    sanitizeLine(payload.message, 300),
    fields,
    payload.event === 'opened' || payload.event === 'test' ? `answer by ${payload.deadline}: ${payload.answerWith}` : '',
    payload.link ?? '',
  ];
  return { title: sanitizeLine(title, 120), body: lines.filter(Boolean).join('\n') };
}

/** The Slack-compatible form (`{"text": ...}`): what an incoming webhook of Slack, Mattermost or Discord's /slack takes. */
export function slackBodyOf(payload: NotifyPayload): { text: string } {
  const { title, body } = summaryOf(payload);
  return { text: `*${title}*\n${body}` };
}

function fieldsOf(request: ElicitRequest): NotifyField[] {
  const schema = request.requestedSchema;
  if (request.mode !== 'form' || !schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const title = (property as { title?: unknown }).title;
    return {
      name: sanitizeLine(name, 100),
      type: String((property as { type?: unknown }).type ?? 'string'),
      required: required.has(name),
      ...(typeof title === 'string' ? { title: sanitizeLine(title, 200) } : {}),
    };
  });
}

function domainOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
