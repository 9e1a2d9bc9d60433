/**
 * Tool calls checked before they are sent: an unknown server or tool is named with its close matches, arguments that
 * do not fit the input schema are refused with field and expectation, and a tool that requires MCP task mode is
 * called as a task (one that allows it, when the caller asks). A stale listing is listed afresh before anything is
 * refused; a prompt or resource the server refuses gets close matches from its listing afterwards.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/client';
import { didYouMean } from '../config/close-matches.js';
import { isMcpxError, McpxError, type Issue } from '../errors.js';
import type { ClientPool } from './pool/pool.js';
import { checkArguments } from './argument-check.js';
import { issuesFromServerText } from './server-refusal.js';
import { TASKS_EXTENSION } from './mcp-tasks/index.js';

type Checked = Pick<ClientPool, 'serverNames' | 'listTools' | 'callTool'> &
  Partial<
    Pick<ClientPool, 'getPrompt' | 'listPrompts' | 'readResource' | 'listResources' | 'listResourceTemplates' | 'capabilities'>
  >;

/** The same instance, with `callTool` checked and `listTools` remembered as the schemas to check against. */
export function withCallChecks<T extends Checked>(host: T): T {
  const listed = new Map<string, Tool[]>();
  const list = async (server: string): Promise<Tool[]> => {
    const tools = await host.listTools(server);
    listed.set(server, tools);
    return tools;
  };

  /** The tool as listed; re-listed once when the remembered listing lacks it or refuses the arguments. */
  const toolOf = async (server: string, name: string, args: Record<string, unknown>): Promise<Tool | undefined> => {
    const remembered = listed.get(server);
    const fits = (tool: Tool | undefined): boolean => tool !== undefined && !checkArguments(tool.inputSchema, args).length;
    const fromMemory = remembered?.find((t) => t.name === name);
    if (fits(fromMemory)) return fromMemory;
    const fresh = await list(server);
    const tool = fresh.find((t) => t.name === name);
    if (!tool)
      throw new McpxError(
        'TOOL_NOT_FOUND',
        `${server} has no tool named "${name}"${didYouMean(
          name,
          fresh.map((t) => t.name),
        )} (mcpx list ${server} shows its tools)`,
        { data: { server, tool: name, known: fresh.map((t) => t.name) } },
      );
    return tool;
  };

  const callTool: Checked['callTool'] = async (server, tool, args = {}, options) => {
    const known = host.serverNames();
    if (!known.includes(server))
      throw new McpxError(
        'SERVER_NOT_FOUND',
        `no server named "${server}"${didYouMean(server, known)}${known.length ? ` (configured: ${known.join(', ')})` : '; no servers are configured'}`,
        { data: { server, known } },
      );
    // No call is made (only the sign-in), so there are no arguments to check.
    if (options?.signInOnly) return host.callTool(server, tool, args, options);
    // A server that cannot be listed (not started yet for want of credentials, or down) is called as asked: the
    // call says what is wrong with it.
    const definition = await toolOf(server, tool, args).catch((error: unknown) => {
      if (isMcpxError(error, 'TOOL_NOT_FOUND')) throw error;
      return undefined;
    });
    const issues = definition ? checkArguments(definition.inputSchema, args) : [];
    if (issues.length) throw argumentsInvalid(server, tool, issues, 'do not match its input schema');
    // 2026-07-28 tools carry no taskSupport: a server that declares the tasks extension decides for itself.
    const serverDecides =
      options?.task === true &&
      definition?.execution?.taskSupport === undefined &&
      (await host.capabilities?.(server).catch(() => undefined))?.extensions?.[TASKS_EXTENSION] !== undefined;
    const task = serverDecides ? true : asTask(server, tool, definition, options?.task);
    try {
      return await host.callTool(server, tool, args, task && !options?.task ? { ...options, task } : options);
    } catch (error) {
      const refused = refusalIssues(error);
      if (refused) throw argumentsInvalid(server, tool, refused, 'were refused by the server', error);
      throw error;
    }
  };

  return { ...host, listTools: list, callTool, ...checkedRequests(host) };
}

/** getPrompt and readResource, their refusals explained when the name or URI is not one the server lists. */
function checkedRequests(host: Checked): Partial<Pick<ClientPool, 'getPrompt' | 'readResource'>> {
  const { getPrompt, listPrompts, readResource, listResources, listResourceTemplates } = host;
  const checked: Partial<Pick<ClientPool, 'getPrompt' | 'readResource'>> = {};
  if (getPrompt && listPrompts)
    checked.getPrompt = async (server, name, args, options) => {
      try {
        return await getPrompt(server, name, args, options);
      } catch (error) {
        const known = (await listPrompts(server).catch(() => undefined))?.map((p) => p.name);
        if (!known || known.includes(name)) throw error;
        throw new McpxError(
          'PROMPT_NOT_FOUND',
          `${server} has no prompt named "${name}"${didYouMean(name, known)} (mcpx prompt list ${server} shows its prompts)`,
          { data: { server, prompt: name, known }, cause: error },
        );
      }
    };
  if (readResource && listResources)
    checked.readResource = async (server, uri, options) => {
      try {
        return await readResource(server, uri, options);
      } catch (error) {
        const known = (await listResources(server).catch(() => undefined))?.map((r) => r.uri);
        const templates = (await listResourceTemplates?.(server).catch(() => undefined)) ?? [];
        if (!known || known.includes(uri) || templates.some((t) => fitsTemplate(uri, t.uriTemplate))) throw error;
        throw new McpxError(
          'RESOURCE_NOT_FOUND',
          `${server} has no resource "${uri}"${didYouMean(uri, known)} (mcpx resource list ${server} shows its resources and templates)`,
          { data: { server, uri, known }, cause: error },
        );
      }
    };
  return checked;
}

/** Whether a URI could come from an RFC 6570 template: each {expression} stands for any text. */
function fitsTemplate(uri: string, template: string): boolean {
  const pattern = template
    .split(/\{[^}]*\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(uri);
}

function argumentsInvalid(server: string, tool: string, issues: Issue[], what: string, cause?: unknown): McpxError {
  return new McpxError(
    'ARGUMENTS_INVALID',
    `the arguments of ${server}.${tool} ${what}: ${issues.map((i) => i.message).join('; ')} (mcpx list ${server} --schema shows it)`,
    { data: { server, tool, issues }, ...(cause === undefined ? {} : { cause }) },
  );
}

/**
 * Whether the call goes as an MCP task: always for a tool that requires it, when asked for one that allows it. Asked
 * of a tool that does not allow it (or of one not listed), the call is refused with nothing sent.
 */
function asTask(server: string, tool: string, definition: Tool | undefined, asked: boolean | undefined): boolean | undefined {
  const support = definition?.execution?.taskSupport;
  if (support === 'required' && asked === false)
    throw new McpxError(
      'TASKS_NOT_SUPPORTED',
      `${server}.${tool} runs only as an MCP task (its execution.taskSupport is "required") and the call refused one. Nothing was sent`,
      {
        data: {
          server,
          tool,
          taskSupport: support,
          code: -32021,
          requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
        },
      },
    );
  if (support === 'required') return true;
  if (!asked || support === 'optional') return asked;
  throw new McpxError(
    'TASKS_NOT_SUPPORTED',
    `${server}.${tool} ${definition ? 'does not allow MCP task mode (its execution.taskSupport is not "optional" or "required")' : 'could not be listed, so whether it allows MCP task mode is unknown'}; call it without asking for a task. Nothing was sent`,
    { data: { server, tool, ...(support ? { taskSupport: support } : {}) } },
  );
}

/** A -32602 whose text names fields; anything else (an unknown tool, a bad cursor) stays as it was. */
function refusalIssues(error: unknown): Issue[] | undefined {
  const cause = error instanceof McpxError ? error.cause : error;
  if (!(cause instanceof ProtocolError) || cause.code !== -32602) return undefined;
  return issuesFromServerText(cause.message);
}
