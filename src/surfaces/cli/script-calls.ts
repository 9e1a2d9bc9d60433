/**
 * A script's `tools.<server>.<tool>()` on the run's mcpx: the name resolved from the server's tool list, a sign-in
 * nobody here answers handed to the daemon, and the call's outcome as the sandbox's reply (structured content when
 * the tool declares an output schema; a question nobody here answers is the `mcpx call` message).
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { Broker } from '../../broker/index.js';
import type { InputRequiredOutcome } from '../../client/index.js';
import { SIGN_IN_META, signInErrorOf, withSignInAsker } from '../../auth/sign-in/question.js';
import { assignNames, memberName } from '../../codegen/names.js';
import { didYouMean } from '../../config/close-matches.js';
import { McpxError } from '../../errors.js';
import type { Mcpx } from '../../mcpx.js';
import type { HostBindings, ToolCallReply } from '../../runtime/index.js';
import type { ElicitHandler } from '../../types.js';
import { listingSignInAsker } from './listing-sign-in.js';
import { renderInputRequired } from './render.js';
import type { SignInHandOff } from './script-sign-in.js';

/** What the `mcpx call` message prints beside the questions: the session and the commands that answer them. */
export interface Pasted {
  session: string;
  pasteable: { configPath?: string; layout: 'row' };
}

export interface ScriptCallDeps {
  mcpx: Mcpx;
  broker: Broker;
  /** The run's pipeline: a sign-in its listing needs is asked through it. */
  pipeline: ElicitHandler;
  ttlMs: number;
  pasted: Pasted;
  signInElsewhere?: SignInHandOff;
}

/** The sandbox's callTool over the run's mcpx. */
export function scriptCallTool(deps: ScriptCallDeps): HostBindings['callTool'] {
  const { mcpx, broker, ttlMs, pasted, pipeline, signInElsewhere } = deps;
  // Names are resolved from the server's tool list before the first call: a sign-in that listing needs is asked here.
  const resolver = createNameResolver(mcpx, (server, tool) =>
    withSignInAsker(listingSignInAsker({ server, tool, onElicit: pipeline, broker, ttlMs }), () => mcpx.listTools(server)),
  );

  // A sign-in the listing needed and nobody here answered is handed over, and the run stops at its question there.
  const resolveSigningIn = async (server: string, tool: string): Promise<ResolvedTool | ToolCallReply> => {
    try {
      return await resolver.resolve(server, tool);
    } catch (error) {
      const needed = signInErrorOf(error);
      if (!signInElsewhere || needed?.code !== 'SIGN_IN_REQUIRED') throw error;
      const handed = await signInElsewhere(String(needed.data?.server ?? server), tool);
      // Signed in meanwhile (the tokens are in the secret store): listed again, asking nothing.
      return handed === 'signed-in' ? resolver.resolve(server, tool) : handed;
    }
  };

  // A sign-in the call itself met (a step-up to more scopes) and nobody here answered: its page would come back to
  // this run's listener, which ends with the run. The question is abandoned, the call let go (the server refused it,
  // so it did nothing) and the sign-in, for the same scopes, handed over; run again, the call is made on the new token.
  const handStepUp = async (outcome: InputRequiredOutcome): Promise<ToolCallReply | undefined> => {
    const [question, ...more] = outcome.questions;
    if (!signInElsewhere || more.length || question?.mode !== 'url' || question.meta?.[SIGN_IN_META] !== true) return undefined;
    await broker.abandon(question.id, 'handed to the daemon, whose loopback outlives this run').catch(() => undefined);
    void outcome.live?.result.catch(() => undefined);
    try {
      outcome.live?.respond(question.id, { action: 'cancel' });
    } catch {
      // already gone
    }
    const scope = new URL(question.url ?? '').searchParams.get('scope') ?? undefined;
    const handed = await signInElsewhere(outcome.server, outcome.tool, scope);
    if (handed !== 'signed-in') return handed;
    const message = `${outcome.server}.${outcome.tool} was refused for want of scopes, now granted: run the script again`;
    return { status: 'tool-error', message, code: 'SIGN_IN_REQUIRED' };
  };

  return async (server, tool, args): Promise<ToolCallReply> => {
    const target = await resolveSigningIn(server, tool);
    if ('status' in target) return target;
    const outcome = await mcpx.callTool(target.server, target.tool, args);
    const stepUp = outcome.status === 'input-required' ? await handStepUp(outcome) : undefined;
    if (stepUp) return stepUp;
    if (outcome.status === 'input-required') {
      const now = Date.now();
      const expiresAt = outcome.live?.expiresAt ?? (outcome.continuation ? outcome.continuation.askedAt + ttlMs : now + ttlMs);
      const message = renderInputRequired({
        server: outcome.server,
        tool: outcome.tool,
        questions: outcome.questions.map((q) => ({ ...q, expiresAt })),
        ...pasted,
        now,
      });
      return {
        status: 'input-required',
        message,
        data: { callId: outcome.callId, server: outcome.server, tool: outcome.tool, questions: outcome.questions },
      };
    }
    const result = outcome.result;
    if (result.isError === true) {
      return {
        status: 'tool-error',
        message: `${target.server}.${target.tool} failed: ${textOf(result.content) || 'the tool reported an error'}`,
        result,
      };
    }
    if (!target.structured) return { status: 'ok', value: result };
    if (result.structuredContent === undefined) {
      return {
        status: 'tool-error',
        message: `${target.server}.${target.tool} declares an output schema but returned no structuredContent`,
        result,
      };
    }
    return { status: 'ok', value: result.structuredContent };
  };
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (c): c is { type: 'text'; text: string } =>
        c !== null && typeof c === 'object' && (c as { type?: unknown }).type === 'text',
    )
    .map((c) => c.text)
    .join('\n')
    .slice(0, 2_000);
}

interface ResolvedTool {
  server: string;
  tool: string;
  /** The tool declares an output schema: the script gets its structured content (as the generated types say). */
  structured: boolean;
}

/**
 * `tools.<server>.<tool>` names are the generated declarations' member names: the original name when it is a
 * valid identifier, else a converted one (`create-issue` → `create_issue`). The wire gets the original.
 */
function createNameResolver(
  mcpx: Mcpx,
  list: (server: string, tool: string) => Promise<Tool[]>,
): { resolve(server: string, tool: string): Promise<ResolvedTool> } {
  const toolsOf = new Map<string, Promise<Map<string, { name: string; structured: boolean }>>>();
  const serverNames = mcpx.serverNames();
  const serverMembers = new Map([...assignNames(serverNames, memberName)].map(([original, member]) => [member, original]));
  const serverOf = (name: string): string => {
    if (serverNames.includes(name)) return name;
    const original = serverMembers.get(name);
    if (original) return original;
    throw new McpxError(
      'SERVER_NOT_FOUND',
      `no server named "${name}" in the config (servers: ${serverNames.join(', ') || 'none'})`,
      { data: { server: name } },
    );
  };
  const catalog = (server: string, tool: string): Promise<Map<string, { name: string; structured: boolean }>> => {
    let entry = toolsOf.get(server);
    if (!entry) {
      entry = list(server, tool).then((tools) => {
        const byMember = new Map<string, { name: string; structured: boolean }>();
        const members = assignNames(
          tools.map((t) => t.name),
          memberName,
        );
        for (const t of tools) {
          const spec = { name: t.name, structured: t.outputSchema !== undefined };
          byMember.set(t.name, spec);
          const member = members.get(t.name);
          if (member && !byMember.has(member)) byMember.set(member, spec);
        }
        return byMember;
      });
      entry.catch(() => toolsOf.delete(server));
      toolsOf.set(server, entry);
    }
    return entry;
  };
  return {
    async resolve(serverName, toolName) {
      const server = serverOf(serverName);
      const tools = await catalog(server, toolName);
      const spec = tools.get(toolName);
      if (!spec) {
        const known = [...new Set([...tools.values()].map((t) => t.name))];
        // The script may use either the original name or its member name: suggest from both.
        const hint = didYouMean(toolName, [...tools.keys()]);
        throw new McpxError(
          'CALL_FAILED',
          `${server} has no tool named "${toolName}"${hint} (tools: ${known.join(', ') || 'none'})`,
          { data: { server, tool: toolName } },
        );
      }
      return { server, tool: spec.name, structured: spec.structured };
    },
  };
}
