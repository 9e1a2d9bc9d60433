/**
 * The REST contract as zod schemas: requests are validated with them and `/openapi.json` is generated from
 * them, so the document cannot drift from the routes.
 */
import { z } from '@hono/zod-openapi';
import type { Elicitation } from '../../broker/index.js';
import { ACTIONS } from '../../constants.js';

const ELC = /^elc-[0-9a-f]{16}$/;
const TSK = /^tsk-[0-9a-f]{16}$/;

const JsonObject = z.record(z.string(), z.unknown());

/** The `by` values a client may claim for its answer. */
export const CLIENT_ANSWERED_BY = ['cli', 'http', 'mcp', 'plugin', 'script', 'person', 'agent', 'api'] as const;

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'ELICITATION_NOT_FOUND' }),
      message: z.string(),
      data: JsonObject.optional().openapi({ description: 'ANSWER_INVALID carries `issues`: [{field, expected, message}]' }),
    }),
  })
  .openapi('Error');

export const ElicitationSchema = z
  .object({
    id: z.string().regex(ELC).openapi({ example: 'elc-9f2c1a84bb0e7d31' }),
    trace: z.string().openapi({ description: 'The call that asked (cal-<16 hex>).', example: 'cal-d13e4c64102e9113' }),
    parent: z.string().optional(),
    session: z.string(),
    sessionSource: z.enum(['env', 'fingerprint', 'explicit']),
    server: z.string(),
    tool: z.string(),
    mode: z.enum(['form', 'url']),
    message: z.string().openapi({ description: 'Server-supplied text: sanitise before showing it on a terminal.' }),
    requestedSchema: JsonObject.optional(),
    url: z.string().optional(),
    domain: z.string().optional().openapi({
      description: 'url mode: the hostname the URL leads to (punycode for look-alike names): show it beside the URL.',
    }),
    urlOpenable: z.boolean().optional().openapi({
      description:
        'url mode: false when mcpx would not open it (only https:, and http: on this machine); a client should not open it either.',
    }),
    era: z.enum(['legacy', 'modern']),
    key: z.string().optional(),
    task: z.string().optional().openapi({ description: 'The task (tsk-<16 hex>) holding the call, when the daemon holds it.' }),
    secret: z.object({ service: z.string(), account: z.string() }).optional().openapi({
      description:
        'mcpx\'s own question for a secret credential: the accepted value goes to the secret store and is recorded as "(kept in the secret store)".',
    }),
    audience: z.enum(['user', 'agent']).optional(),
    asker: z.enum(['mcpx']).optional().openapi({
      description:
        "mcpx asks this on its own behalf (a write confirmation, a credential, a sign-in): only a person may accept it; an agent's or a script's accept is refused with 403 PERSON_REQUIRED.",
    }),
    createdAt: z.number().int(),
    expiresAt: z.number().int().openapi({ description: 'ms since epoch; at this instant the broker answers cancel.' }),
    state: z.enum(['pending', 'answered', 'expired', 'abandoned']),
    abandonedReason: z.string().optional(),
    meta: JsonObject.optional(),
    timeLeftMs: z.number().int().openapi({ description: 'Time remaining before expiry; 0 once not pending.' }),
    ambiguous: z.boolean().optional().openapi({
      description:
        'true when the question arrived while other legacy calls shared the server connection and nothing on the wire tied it to one call.',
    }),
    candidateCalls: z.array(z.string()).optional().openapi({
      description: 'With ambiguous: every call open on the connection when the question came (cal- ids, oldest first).',
    }),
    respondWith: z.string().openapi({ description: 'The exact command that answers it.' }),
  })
  .openapi('Elicitation');

export const AnswerSchema = z
  .object({
    id: z.string(),
    action: z.enum(ACTIONS),
    content: JsonObject.optional(),
    by: z.string(),
    at: z.number().int(),
    pid: z.number().int(),
    user: z.string().optional(),
    session: z.string().optional(),
  })
  .openapi('Answer');

export const TaskSchema = z
  .object({
    id: z.string().regex(TSK),
    callId: z.string(),
    parent: z.string().optional(),
    server: z.string(),
    tool: z.string(),
    arguments: JsonObject,
    session: z.string(),
    state: z.enum(['running', 'input-required', 'complete', 'failed']),
    era: z.enum(['legacy', 'modern']).optional(),
    elicit: z
      .enum(['ask', 'auto', 'decline', 'error'])
      .optional()
      .openapi({ description: 'The policy mode the caller chose (X-Mcpx-Elicit).' }),
    questions: z.array(z.string()),
    waitingOn: z.array(z.string()),
    result: JsonObject.optional(),
    error: z.object({ code: z.string(), message: z.string(), data: JsonObject.optional() }).optional(),
    pid: z.number().int(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .openapi('Task');

export const CompleteSchema = z
  .object({
    status: z.literal('complete'),
    callId: z.string(),
    task: z.string(),
    result: JsonObject.openapi({ description: 'The MCP CallToolResult; a tool error is complete with isError.' }),
  })
  .openapi('CallComplete');

export const InputRequiredSchema = z
  .object({
    status: z.literal('input-required'),
    inputRequired: z.object({
      callId: z.string(),
      task: z.string(),
      server: z.string(),
      tool: z.string(),
      questions: z.array(ElicitationSchema),
      text: z.string().openapi({ description: 'The same information as a message for a person (what mcpx call prints).' }),
    }),
  })
  .openapi('InputRequired');

export const HealthSchema = z
  .object({ pid: z.number().int(), version: z.string(), startedAt: z.number().int(), activeCalls: z.number().int() })
  .openapi('Health');

export const ServerToolParams = z.object({
  server: z
    .string()
    .min(1)
    .openapi({ param: { name: 'server', in: 'path' }, example: 'github' }),
  tool: z
    .string()
    .min(1)
    .openapi({ param: { name: 'tool', in: 'path' }, example: 'create_issue' }),
});

export const ServerParams = z.object({
  server: z
    .string()
    .min(1)
    .openapi({ param: { name: 'server', in: 'path' }, example: 'github' }),
});

export const ServerListSchema = z.object({ servers: z.array(z.string()) }).openapi('ServerList');

export const ToolSchema = z
  .looseObject({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: JsonObject,
    outputSchema: JsonObject.optional(),
    annotations: JsonObject.optional(),
  })
  .openapi('Tool', { description: 'An MCP Tool as the server listed it (JSON Schema 2020-12 input and output schemas).' });

export const ToolListSchema = z.object({ server: z.string(), tools: z.array(ToolSchema) }).openapi('ToolList');

export const ElicitIdParams = z.object({
  id: z
    .string()
    .regex(ELC, 'an elicitation id looks like elc-<16 hex>')
    .openapi({ param: { name: 'id', in: 'path' }, example: 'elc-9f2c1a84bb0e7d31' }),
});

export const TaskIdParams = z.object({
  id: z
    .string()
    .regex(TSK, 'a task id looks like tsk-<16 hex>')
    .openapi({ param: { name: 'id', in: 'path' }, example: 'tsk-06654ccc9f064a5c' }),
});

export const CallHeaders = z.object({
  'x-mcpx-session': z.string().optional().openapi({
    description: 'The caller session (MCPX_SESSION_ID or the config+cwd fingerprint); the daemon default otherwise.',
  }),
  'x-mcpx-session-source': z.enum(['env', 'fingerprint', 'explicit']).optional().openapi({
    description: 'How the caller found its session (MCPX_SESSION_ID = env, config+cwd = fingerprint); recorded on its questions.',
  }),
  'x-mcpx-parent': z
    .string()
    .optional()
    .openapi({ description: 'The call this one continues (cal-<16 hex>), for the audit chain.' }),
  'x-mcpx-elicit': z.enum(['ask', 'auto', 'decline', 'error']).optional().openapi({
    description:
      "The policy mode for this call's questions, instead of the config's: ask (rules, then the question waits: 202), auto (rules only; unmatched is cancelled), decline (every question declined, rules skipped), error (a question fails the call: 403 ELICITATION_REFUSED).",
  }),
  'x-mcpx-elicit-ttl-ms': z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/)
    .optional()
    .openapi({ description: "How long this call's questions wait for an answer, in milliseconds, instead of the daemon's TTL." }),
  'x-mcpx-progress-token': z.string().max(200).optional().openapi({
    description:
      "Names this call in its call.progress events on /v1/events (the server's progress notifications), so the caller can follow them before it knows the task id.",
  }),
  'x-mcpx-task': z.enum(['1']).optional().openapi({
    description:
      'Call the tool as an MCP task (a tool whose execution.taskSupport is "optional"; one that requires it always is). 422 TASKS_NOT_SUPPORTED for a tool that does not allow it.',
  }),
});

export const AnswerHeaders = z.object({
  'x-mcpx-session': z
    .string()
    .optional()
    .openapi({ description: 'The answering session; refused (403) when it is not the question’s, unless ?all=1.' }),
  'x-mcpx-by': z.enum(CLIENT_ANSWERED_BY).optional().openapi({
    description:
      'The surface answering, recorded on the answer and in the audit log (default http); policy and expiry are the broker’s own.',
  }),
  'x-mcpx-pid': z.coerce.number().int().positive().optional().openapi({
    description:
      'The answering process (the CLI that relayed through the daemon), recorded on the answer instead of the daemon’s own (§6b).',
  }),
  'x-mcpx-user': z.string().min(1).max(256).optional().openapi({ description: 'The answering user, recorded on the answer.' }),
});

const ALL = z.enum(['1', 'true', '0', 'false']).optional().openapi({
  description:
    "1: act as an operator, over every session's questions (the caller is otherwise bound to its own session: X-Mcpx-Session, ?session=, else the daemon's).",
});

/** `?all=1`: an operator, over every session (a signed-in web inbox is one already). */
export const ScopeQuery = z.object({ all: ALL });

export const SessionHeaders = z.object({
  'x-mcpx-session': z
    .string()
    .optional()
    .openapi({ description: "The caller's session (MCPX_SESSION_ID or the config+cwd fingerprint); the daemon's otherwise." }),
});

export const ElicitListQuery = z.object({
  session: z.string().optional().openapi({
    description: "The caller's session, as X-Mcpx-Session; with all=1, only this session's questions.",
  }),
  all: ALL,
  server: z.string().optional(),
  tool: z.string().optional(),
  trace: z.string().optional(),
  state: z
    .string()
    .optional()
    .openapi({ description: 'pending (default), answered, expired, abandoned, or a comma list; `all` for every state.' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .openapi({ description: 'At most this many (a page); the answer then carries nextCursor when more may follow.' }),
  cursor: z.string().optional().openapi({ description: 'nextCursor of the previous page.' }),
});

export const TaskQuery = z.object({
  wait: z.coerce
    .number()
    .min(0)
    .max(600)
    .optional()
    .openapi({ description: 'Seconds to wait for the task to finish before answering with it as it stands.' }),
  all: ALL,
});

export const EventsQuery = z.object({
  session: z.string().optional().openapi({
    description: "The caller's session, as X-Mcpx-Session; with all=1, only this session's events.",
  }),
  all: ALL,
  kinds: z.string().optional().openapi({ description: 'Comma list of event kinds to receive (default: all).' }),
  since: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .openapi({ description: 'Replay the audit log from this time (ms since epoch) before the live events.' }),
});

export const AcceptBody = z.object({
  content: JsonObject.optional().openapi({ description: 'Form mode: the field values; omitted in URL mode.' }),
});

export const ArgumentsBody = JsonObject.openapi('Arguments', { description: 'The tool arguments.' });

export const EventSchema = z
  .object({
    kind: z.enum([
      'elicit.open',
      'elicit.answered',
      'elicit.expired',
      'elicit.resumed',
      'elicit.abandoned',
      'policy.fired',
      'elicit.passed',
      'elicit.refused',
      'notify.sent',
      'notify.failed',
      'notify.skipped',
    ]),
    at: z.number().int(),
    elicit: z.string().optional(),
    trace: z.string().optional(),
    parent: z.string().optional(),
    session: z.string().optional(),
    server: z.string().optional(),
    tool: z.string().optional(),
    pid: z.number().int(),
    action: z.enum(ACTIONS).optional(),
    by: z.string().optional(),
    answeredAfterMs: z.number().optional(),
    data: JsonObject.optional(),
  })
  .openapi('BrokerEvent');

export const ElicitationListSchema = z
  .object({
    elicitations: z.array(ElicitationSchema),
    nextCursor: z
      .string()
      .optional()
      .openapi({ description: 'Pass as cursor for the next page (only with limit, when the page was full).' }),
  })
  .openapi('ElicitationList');
export const ElicitationWithAnswerSchema = z
  .object({ elicitation: ElicitationSchema, answer: AnswerSchema.optional() })
  .openapi('ElicitationWithAnswer');
export const AnsweredSchema = z
  .object({
    answer: AnswerSchema,
    delivery: z.enum(['delivered', 'unconfirmed']).optional().openapi({
      description:
        "A legacy call's answer: `delivered` once the daemon holding the call passed it on; `unconfirmed` when that daemon could not be heard from in time. A holder found dead first is a 410 ELICITATION_ABANDONED instead.",
    }),
  })
  .openapi('Answered');
export const TaskEnvelopeSchema = z.object({ task: TaskSchema }).openapi('TaskEnvelope');

/** The core's listed view as REST sends it: `respondWith` always set. The schema above documents this shape. */
export type RestElicitation = Elicitation & { respondWith: string };
// The OpenAPI schema and the core view must agree: a field added to one and not the other fails to compile here.
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : never;
export const ELICITATION_SCHEMA_MATCHES_VIEW: SameKeys<z.infer<typeof ElicitationSchema>, RestElicitation> = true;
