/**
 * The config's `notify` list: one sink per entry (a webhook, a command, a desktop notification), each told when a
 * question opens (and, where asked, answered or expired), filtered like a policy rule. Errors name the entry and field.
 */
import * as z from 'zod';
import type { Issue } from '../errors.js';
import { askedValueSchema } from './oauth-schema.js';

export const NOTIFY_WHEN = ['opened', 'answered', 'expired'] as const;
export type NotifyWhen = (typeof NOTIFY_WHEN)[number];

/** The matchers of a policy rule, plus who may answer (the person only, or anyone). */
const notifyMatchSchema = z.strictObject({
  server: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  field: z.string().min(1).optional(),
  mode: z.enum(['form', 'url']).optional(),
  audience: z.enum(['person', 'any']).optional(),
});
export type NotifyMatch = z.infer<typeof notifyMatchSchema>;

const common = {
  /** How this sink is named in the audit log and `mcpx notify test`; default `webhook[0]`, `command[1]`... */
  name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/)
    .optional(),
  on: z.array(z.enum(NOTIFY_WHEN)).min(1).optional(),
  match: notifyMatchSchema.optional(),
};

const webhookSchema = z.strictObject({
  webhook: z.url({ protocol: /^https?$/ }),
  /** The HMAC-SHA256 key, asked at first use and kept in the secret store; none: the POST goes unsigned. */
  secret: askedValueSchema.optional(),
  /** `json` (default): mcpx's payload; `slack`: `{"text": ...}` for a Slack-compatible incoming webhook. */
  format: z.enum(['json', 'slack']).optional(),
  /** How long one try may take (ms) before it counts as failed and is tried again; default 5000. */
  timeoutMs: z.number().int().positive().optional(),
  /** Tries after the first that fails (0-10, default 3), each after a longer wait (1 s, 3 s, then 10 s). */
  retries: z.number().int().min(0).max(10).optional(),
  ...common,
});
const commandSchema = z.strictObject({ command: z.array(z.string().min(1)).min(1), ...common });
const desktopSchema = z.strictObject({ desktop: z.literal(true), ...common });

export type WebhookSink = z.infer<typeof webhookSchema>;
export type CommandSink = z.infer<typeof commandSchema>;
export type DesktopSink = z.infer<typeof desktopSchema>;
/** A validated entry, with its name filled in. */
export type NotifySink = (WebhookSink | CommandSink | DesktopSink) & { name: string };

const EXPECTED: Record<string, string> = {
  webhook: 'an http(s) URL the notification is POSTed to',
  secret: '{"ask": "<what to ask for>", "secret": true}: the signing key, asked once and kept in the secret store',
  format: '"json" (mcpx\'s payload) or "slack" ({"text": ...})',
  command: 'a non-empty array of strings: the program and its arguments (it gets the JSON on stdin)',
  desktop: 'true',
  timeoutMs: 'a positive whole number of milliseconds: how long one try may take',
  retries: 'a whole number 0-10: how many times a failed POST is tried again',
  name: 'a name of letters, digits, ".", "_" and "-"',
  on: 'a non-empty array of "opened", "answered", "expired"',
  match: 'an object with any of server, tool, field, mode, audience',
  'match.server': 'a server name (a * matches any run of characters)',
  'match.tool': 'a tool name (a * matches any run of characters)',
  'match.field': 'the name of a field of the question',
  'match.mode': '"form" or "url"',
  'match.audience': '"person" (questions only a person may answer) or "any"',
};

const KINDS = ['webhook', 'command', 'desktop'] as const;

/** The `notify` list, validated; problems are pushed to `issues` with fields under `notify[i]`. */
export function parseNotifyBlock(block: unknown, issues: Issue[]): NotifySink[] {
  if (block === undefined) return [];
  if (!Array.isArray(block)) {
    issues.push({
      field: 'notify',
      expected: 'an array of sinks like [{"webhook": "https://..."}, {"command": ["notify-me"]}, {"desktop": true}]',
      message: 'field "notify": expected an array of sinks, one per entry',
    });
    return [];
  }
  const sinks: NotifySink[] = [];
  const counts: Record<string, number> = {};
  for (const [index, entry] of block.entries()) {
    const base = `notify[${index}]`;
    const kinds = entry && typeof entry === 'object' ? KINDS.filter((k) => k in entry) : [];
    if (kinds.length !== 1) {
      issues.push({
        field: base,
        expected: 'exactly one of "webhook", "command" or "desktop"',
        message: `${base}: ${kinds.length ? `has ${kinds.map((k) => `"${k}"`).join(' and ')}` : 'has none of "webhook", "command", "desktop"'}; expected exactly one`,
      });
      continue;
    }
    const kind = kinds[0]!;
    const schema = kind === 'webhook' ? webhookSchema : kind === 'command' ? commandSchema : desktopSchema;
    const result = schema.safeParse(entry);
    if (!result.success) {
      for (const issue of result.error.issues) {
        // `on.0` is the list `on`: the message names the field, the expectation covers the whole list.
        const path = issue.path.filter((part) => typeof part !== 'number').map(String);
        const within = path.join('.');
        const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : [];
        const expected = unknownKeys.length
          ? `only the fields of a ${kind} sink`
          : (EXPECTED[within] ?? EXPECTED[path[0] ?? ''] ?? issue.message);
        issues.push({
          field: within ? `${base}.${within}` : base,
          expected,
          message: unknownKeys.length
            ? `${base} (${kind}): ${within ? `field "${within}": ` : ''}unknown field ${unknownKeys.map((k) => `"${k}"`).join(', ')}`
            : `${base} (${kind}): field "${within}": expected ${expected}`,
        });
      }
      continue;
    }
    const nth = (counts[kind] = (counts[kind] ?? -1) + 1);
    const name = result.data.name ?? `${kind}[${nth}]`;
    if (sinks.some((sink) => sink.name === name)) {
      issues.push({
        field: `${base}.name`,
        expected: 'a name no other entry has',
        message: `${base}: the name "${name}" is taken`,
      });
      continue;
    }
    sinks.push({ ...result.data, name });
  }
  return sinks;
}
