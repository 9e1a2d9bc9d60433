/**
 * `mcpx/opencode`: the opencode plugin. It binds opencode's session to mcpx's (commands the agent runs get
 * MCPX_SESSION_ID), and puts a question raised in a session in front of that session and nobody else's, at one of
 * three levels (below). Only the default export is a function: opencode calls every exported function as a plugin.
 */
import type { Plugin, PluginInput, ToolContext } from '@opencode-ai/plugin';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { BrokerEvent, Elicitation } from '../../broker/index.js';
import type { Answer } from '../../types.js';
import { allowAnswer, describeForAgent, permissionFor, toastFor, type PluginLevel } from './describe.js';
import { createDialogHooks, type DialogHooks } from './dialog-hooks.js';
import { createQuestionLink, type QuestionLink } from './link.js';
import { ACTIONS } from '../../constants.js';

/**
 * The plugin option `elicit`, else MCPX_PLUGIN_ELICIT; default notify.
 *   notify  the question is appended to the session's next tool result and shown as a toast; the agent answers
 *           with the mcpx_elicit_* tools (or hands it to the person with mcpx_elicit_ask)
 *   ask     the question goes to the person through opencode's dialogs (mcpx_elicit_ask): its permission prompt
 *           when a yes/no answers it, else its question dialog with one question per field (dialog-hooks.ts)
 *   auto    policy only: the agent's calls run with MCPX_ELICIT=auto
 */
const LEVELS: readonly PluginLevel[] = ['notify', 'ask', 'auto'];
const OWN_TOOLS = new Set(['mcpx_elicit_list', 'mcpx_elicit_answer', 'mcpx_elicit_ask']);

interface McpxPluginOptions {
  elicit?: PluginLevel;
  /** The mcpServers config whose daemon holds the calls (default: found from the project directory as the CLI does). */
  config?: string;
  /** Add the mcpx_elicit_* tools (default: yes, unless opencode.json already runs `mcpx serve` as an MCP server). */
  tools?: boolean;
}

const McpxOpencodePlugin: Plugin = async (input, rawOptions) => {
  const options = (rawOptions ?? {}) as McpxPluginOptions;
  const env = process.env as Record<string, string | undefined>;
  const level = levelOf(options.elicit ?? env.MCPX_PLUGIN_ELICIT);
  const link = createQuestionLink(env, input.directory, options.config);
  const sessions = new Set<string>(); // the opencode sessions this plugin has seen: toasts go only to them
  const announced = new Set<string>();
  const dialogs = createDialogHooks(link, (q, text) =>
    input.client.tui
      .showToast({ body: { title: `${q.server} (via mcpx)`, message: text.slice(0, 300), variant: 'info' } })
      .then(() => undefined),
  );

  const onEvent = (event: BrokerEvent): void => {
    if (event.kind !== 'elicit.open' || !event.elicit || !event.session || !sessions.has(event.session)) return;
    void link.get(event.elicit, event.session).then(
      (q) => (q && q.state === 'pending' ? toast(input, q) : undefined),
      () => undefined,
    );
  };
  // Subscribes once a daemon runs; checked at each hook rather than polled.
  const follow = (): Promise<void> =>
    level === 'auto' || link.following ? Promise.resolve() : link.follow(onEvent).catch(() => undefined);

  const hooks: Awaited<ReturnType<Plugin>> = {
    async 'shell.env'(shell, output) {
      if (!shell.sessionID) return;
      sessions.add(shell.sessionID);
      output.env.MCPX_SESSION_ID = shell.sessionID;
      output.env.MCPX_ELICIT = level === 'auto' ? 'auto' : 'return';
      await follow();
    },
    async 'tool.execute.before'(call, output) {
      if (level !== 'auto') dialogs.before(call.tool, call.sessionID, output.args as Record<string, unknown>);
    },
    async event({ event }) {
      if (level !== 'auto') await dialogs.event(event);
    },
    async 'tool.execute.after'(call, output) {
      sessions.add(call.sessionID);
      if (level === 'auto' || OWN_TOOLS.has(call.tool)) return;
      const recorded = await dialogs.after(call.tool, call.sessionID, call.args, output.metadata);
      if (recorded) output.output = `${output.output ?? ''}\n\n${recorded}`;
      await follow();
      const pending = await link.pending(call.sessionID).catch(() => [] as Elicitation[]);
      if (!pending.length) return;
      output.output = `${output.output ?? ''}\n\n${describeForAgent(pending, level, Date.now())}`;
      for (const q of pending) if (!announced.has(q.id) && !link.following) await toast(input, q);
      for (const q of pending) announced.add(q.id);
    },
    async dispose() {
      await link.close();
    },
  };
  if (level !== 'auto' && options.tools !== false && !servedByMcpx(input.directory))
    hooks.tool = questionTools(link, level, dialogs);
  return hooks;
};

export default McpxOpencodePlugin;

function levelOf(value: unknown): PluginLevel {
  if (value === undefined || value === '') return 'notify';
  if (LEVELS.includes(value as PluginLevel)) return value as PluginLevel;
  throw new Error(`mcpx plugin: elicit (or MCPX_PLUGIN_ELICIT) must be notify, ask or auto, got ${JSON.stringify(value)}`);
}

async function toast(input: PluginInput, q: Elicitation): Promise<void> {
  await input.client.tui.showToast({ body: toastFor(q) }).catch(() => undefined);
}

/** Whether the project's opencode.json runs `mcpx serve` as an MCP server (whose tools already list and answer). */
function servedByMcpx(directory: string): boolean {
  const file = join(directory, 'opencode.json');
  if (!existsSync(file)) return false;
  try {
    const config = JSON.parse(readFileSync(file, 'utf8')) as { mcp?: Record<string, { command?: string[] }> };
    return Object.values(config.mcp ?? {}).some((server) => {
      const argv = (server.command ?? []).join(' ');
      return /\bmcpx\b/.test(argv) && /\bserve\b/.test(argv);
    });
  } catch {
    return false;
  }
}

/** This session's question, or undefined: a question from another session is never shown or answered here. */
async function ownQuestion(link: QuestionLink, id: string, session: string): Promise<Elicitation | undefined> {
  const q = await link.get(id, session);
  return q && q.session === session ? q : undefined;
}

/** A tool about one question of this session, by id: the arguments parsed, the question found, or the reply that it is not here. */
function ownQuestionTool<S extends z.ZodRawShape>(
  link: QuestionLink,
  description: string,
  shape: S,
  onQuestion: (args: z.infer<z.ZodObject<S>> & { id: string }, q: Elicitation, ctx: ToolContext) => Promise<string>,
) {
  return defineTool({
    description,
    args: argsOf(shape),
    async execute(raw, ctx) {
      const args = z.object(shape).parse(raw) as z.infer<z.ZodObject<S>> & { id: string };
      const q = await ownQuestion(link, args.id, ctx.sessionID);
      if (!q) return `No question ${args.id} waits in this session. See what waits with mcpx_elicit_list.`;
      return onQuestion(args, q, ctx);
    },
  });
}

/** opencode's `tool()` is the identity: typed by the package, with nothing of it loaded at run time. */
const defineTool = ((definition: unknown) => definition) as typeof import('@opencode-ai/plugin').tool;
type ToolArgs = Parameters<typeof defineTool>[0]['args'];
/** Our zod schemas as opencode's (zod 4 schemas interoperate across minor versions; their types do not). */
const argsOf = (shape: z.ZodRawShape): ToolArgs => shape as unknown as ToolArgs;

const answerArgs = {
  id: z.string().describe('the question id, elc-...'),
  action: z.enum(ACTIONS),
  content: z.record(z.string(), z.unknown()).optional().describe('with accept: the answer, matching the schema'),
};
const askArgs = { id: z.string().describe('the question id, elc-...') };

function questionTools(link: QuestionLink, level: PluginLevel, dialogs: DialogHooks) {
  return {
    mcpx_elicit_list: defineTool({
      description:
        'Questions that tools called through mcpx are waiting on in this session: id, who asks, the message, the schema an answer must match, and the time left.',
      args: {},
      async execute(_args, ctx) {
        const pending = await link.pending(ctx.sessionID);
        return pending.length ? describeForAgent(pending, level, Date.now()) : 'No questions are waiting in this session.';
      },
    }),
    mcpx_elicit_answer: ownQuestionTool(
      link,
      'Answer a waiting mcpx question by id. accept with content matching its schema only when you know every value for certain; if you do not know, decline and tell the user why (never invent a value); cancel dismisses it. Questions for the person go to them (mcpx_elicit_ask).',
      answerArgs,
      async (args, q, ctx) => {
        if (args.action === 'accept' && (q.audience === 'user' || q.mode === 'url' || level === 'ask')) {
          return `${q.id} is for the person, not for you: call mcpx_elicit_ask with its id to show it to them.`;
        }
        const answer: Answer =
          args.action === 'accept'
            ? { action: 'accept', ...(args.content ? { content: args.content } : {}) }
            : { action: args.action };
        return answered(link, q, answer, ctx.sessionID);
      },
    ),
    mcpx_elicit_ask: ownQuestionTool(
      link,
      'Show a waiting mcpx question to the person in a dialog and record their answer: a yes/no prompt (allow accepts, deny declines), or, for a form that needs values, the question tool call to make (the person answers there and mcpx records it; you do not relay the values).',
      askArgs,
      async (_args, q, ctx) => {
        if (!allowAnswer(q)) {
          return [
            `${q.id} needs values only the person has. Call the question tool now with exactly these arguments:`,
            JSON.stringify(dialogs.prepare(q, ctx.sessionID)),
            'The person fills in the fields and chooses Accept or Decline; mcpx records their answer itself and the call goes on. Do not answer it with mcpx_elicit_answer.',
          ].join('\n');
        }
        try {
          await ctx.ask(permissionFor(q));
        } catch {
          // opencode rejects a denied permission; an aborted one was dismissed, not refused
          return answered(link, q, { action: ctx.abort.aborted ? 'cancel' : 'decline' }, ctx.sessionID);
        }
        return answered(link, q, allowAnswer(q)!, ctx.sessionID);
      },
    ),
  };
}

async function answered(link: QuestionLink, q: Elicitation, answer: Answer, session: string): Promise<string> {
  try {
    await link.answer(q.id, answer, session);
  } catch (error) {
    return `Not answered: ${(error as Error).message}`;
  }
  const result = q.task ? ` Collect the call's result with: mcpx task result ${q.task}` : '';
  return `${answer.action === 'accept' ? 'Accepted' : answer.action === 'decline' ? 'Declined' : 'Cancelled'} ${q.id}; the call goes on.${result}`;
}
