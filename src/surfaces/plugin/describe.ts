/**
 * What the opencode plugin says about a waiting question: the note appended to a tool result (for the agent), the
 * toast (for the person), the permission dialog's title and metadata, and the answer an "allow" in that dialog
 * gives. Server text is stripped of control characters; opencode renders it as text, not as a terminal.
 */
import { duration, respondWith, stableJson, stripControls } from '../../elicitation/describe.js';
import type { Elicitation } from '../../broker/index.js';
import type { Answer } from '../../types.js';

export type PluginLevel = 'notify' | 'ask' | 'auto';

const who = (q: Elicitation): string => `${stripControls(q.server)}.${stripControls(q.tool)}`;

/** The note for the agent, appended to a tool result of the asking session. */
export function describeForAgent(questions: Elicitation[], level: PluginLevel, now: number): string {
  const blocks = questions.map((q) => {
    const left = q.expiresAt > now ? `${duration(q.expiresAt - now)} left` : 'expiring';
    const lines = [
      `- ${q.id}: ${who(q)} asks: ${stripControls(q.message)}`,
      `  ${q.mode}, ${left}${q.audience === 'user' ? ', for the person' : ''}`,
    ];
    if (q.requestedSchema) lines.push(`  schema ${stableJson(q.requestedSchema)}`);
    if (q.url) lines.push(`  url ${stripControls(q.url)}`);
    if (level === 'ask' || q.audience === 'user' || q.mode === 'url')
      lines.push(
        `  this one is for the person: call mcpx_elicit_ask {"id":"${q.id}"} to show it to them; do not answer it yourself`,
      );
    else
      lines.push(
        `  answer: mcpx_elicit_answer {"id":"${q.id}","action":"accept","content":{...}} | "decline" | "cancel"  (shell: ${respondWith(q)})`,
      );
    return lines.join('\n');
  });
  return [
    `[mcpx] ${questions.length === 1 ? 'A question is' : `${questions.length} questions are`} waiting in this session:`,
    ...blocks,
    'Answer only what you know. If you do not know a value, decline and tell the user why; never invent one. Decline (no) and cancel (dismissed) are different answers.',
  ].join('\n');
}

export function toastFor(q: Pick<Elicitation, 'server' | 'tool' | 'message'>): {
  title: string;
  message: string;
  variant: 'warning';
} {
  return {
    title: `${stripControls(q.server)} (via mcpx) asks`,
    message: stripControls(q.message).slice(0, 300),
    variant: 'warning',
  };
}

/** The permission request opencode shows for a question (ToolContext.ask). */
export function permissionFor(q: Elicitation): {
  permission: string;
  patterns: string[];
  always: string[];
  metadata: Record<string, unknown>;
} {
  return {
    permission: 'mcpx_elicit',
    patterns: [q.id],
    always: [],
    metadata: {
      title: `${who(q)} (via mcpx) asks: ${stripControls(q.message)}`,
      id: q.id,
      server: q.server,
      tool: q.tool,
      mode: q.mode,
      ...(q.url ? { url: q.url, domain: domainOf(q.url) } : {}),
      ...(q.requestedSchema ? { requestedSchema: q.requestedSchema } : {}),
      expiresAt: new Date(q.expiresAt).toISOString(),
    },
  };
}

/**
 * The answer "allow" gives, when a yes/no dialog can give one without inventing anything: a url question (done),
 * a confirmation (one yes/no field: yes), or a form whose fields all have defaults or are optional. Undefined when
 * the form needs values a dialog cannot collect.
 */
export function allowAnswer(q: Elicitation): Answer | undefined {
  if (q.mode === 'url') return { action: 'accept' };
  const entries = Object.entries(q.requestedSchema?.properties ?? {});
  const required = new Set(q.requestedSchema?.required ?? []);
  if (entries.length === 1 && (entries[0]?.[1] as { type?: string } | undefined)?.type === 'boolean')
    return { action: 'accept', content: { [entries[0]![0]]: true } };
  const content: Record<string, unknown> = {};
  for (const [name, schema] of entries) {
    const fallback = (schema as { default?: unknown } | undefined)?.default;
    if (fallback !== undefined) content[name] = fallback;
    else if (required.has(name)) return undefined;
  }
  return { action: 'accept', content };
}

function domainOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '(not a URL)';
  }
}
