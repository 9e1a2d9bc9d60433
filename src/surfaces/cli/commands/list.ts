/**
 * `mcpx list [server | server.tool]`: the configured servers with their status and era, one server's tools as
 * readable signatures, or one tool with each parameter. Over the running daemon's warm connections when one runs,
 * else connected directly and closed after.
 */
import type { ServerStatus } from '../../../client/index.js';
import { didYouMean } from '../../../config/close-matches.js';
import { configCandidates, findConfigPath } from '../../../config/find.js';
import { isMcpxError, McpxError } from '../../../errors.js';
import { sayWaiting } from '../activity.js';
import { parseArgs, UsageError } from '../args.js';
import { openDiscovery, type Discovery } from '../discovery.js';
import { EXIT, type CliIO, type Command } from '../io.js';
import { sanitizeLine } from '../sanitize.js';
import { describeTool, describeToolInFull, parametersOf } from '../signatures.js';
import { jsonFor, prettyJson, styleFor, type Style } from '../style.js';
import { eraVersion } from '../../../types.js';

const USAGE = `usage: mcpx list [server | server.tool] [options]

Without a server: each configured server, whether it can be reached (connected, failed with the reason, needs
auth, needs credentials) and the protocol version it speaks (2025-11-25 or 2026-07-28). With a server: its tools as
signatures, name(required: type, optional?: type), with their descriptions; a tool that requires MCP task mode is
marked, as mcpx cannot call it yet. With server.tool: that tool alone, each parameter (nested ones by their
path, e.g. items[].name) with its type, whether it is required, and its description.

Uses the running daemon's connections when one runs; otherwise connects to the servers itself.

options:
  --json            print JSON: {servers: [...]} or {server, tools: [...]} as listed
  --schema          with a server: each tool's input and output schemas as the server sent them
  --config <file>   the mcpServers config (default: mcpx.json or .mcp.json here or in a parent directory
                    up to home, then the user config; see docs/config.md)
`;

export const command: Command = async (argv, io) => {
  const { flags, positional } = parseArgs(argv, { booleans: ['json', 'schema'], strings: ['config'] });
  if (flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  if (positional.length > 1) throw new UsageError(`expected at most one server, got ${positional.join(' ')}`);
  const [target] = positional;
  // `server.tool`: one tool in full. A configured server whose name has a dot is still a server.
  const dot = target?.indexOf('.') ?? -1;
  const [server, tool] = target && dot > 0 ? [target.slice(0, dot), target.slice(dot + 1)] : [target, undefined];
  if (flags.schema && !server) throw new UsageError("--schema shows one server's tools: mcpx list <server> --schema");
  const config = typeof flags.config === 'string' ? flags.config : undefined;
  const discovery = await openDiscovery(io, config);
  try {
    if (!server) return await listServers(discovery, io, flags.json === true, config);
    if (tool && !(await discovery.servers()).includes(target!))
      return await showTool(discovery, server, tool, io, { json: flags.json === true, schema: flags.schema === true });
    return await listTools(discovery, target!, io, { json: flags.json === true, schema: flags.schema === true });
  } finally {
    await discovery.close();
  }
};

/** The files an empty listing came from: the one given, else every place searched. */
function lookedIn(io: CliIO, config: string | undefined): string[] {
  const found = findConfigPath(config, io.cwd, io.env);
  return found ? [found] : configCandidates(io.cwd, io.env);
}

async function listServers(discovery: Discovery, io: CliIO, json: boolean, config: string | undefined): Promise<number> {
  const names = await discovery.servers();
  const pending = new Set(names);
  const quiet = sayWaiting(io, pending);
  const statuses = await Promise.all(names.map((name) => discovery.status(name).finally(() => pending.delete(name)))).finally(
    quiet,
  );
  const style = styleFor(io.stdout, io.env);
  // A server that could not be reached fails the listing (scripts see it), though the others are still listed.
  const failed = statuses.filter((s) => s.status === 'failed').map((s) => s.server);
  const outcome = (): number => {
    if (!failed.length) return EXIT.OK;
    io.stderr.write(`mcpx list: could not reach ${failed.join(', ')}\n`);
    return EXIT.FAILURE;
  };
  if (json) {
    io.stdout.write(`${jsonFor(io.stdout, { servers: statuses }, style)}\n`);
    return outcome();
  }
  if (!statuses.length) {
    io.stdout.write(
      `No servers are configured. Looked in:\n${lookedIn(io, config)
        .map((file) => `  ${file}\n`)
        .join('')}Add one under "mcpServers" in mcpx.json (see docs/config.md).\n`,
    );
    return EXIT.OK;
  }
  const width = Math.max(...statuses.map((s) => s.server.length));
  for (const status of statuses) io.stdout.write(`${serverLine(status, width, style)}\n`);
  io.stdout.write(`\nmcpx list <server> shows a server's tools.\n`);
  return outcome();
}

function serverLine(status: ServerStatus, width: number, style: Style): string {
  const name = style.bold(status.server.padEnd(width));
  const state =
    status.status === 'connected'
      ? `${style.green('connected')}  ${status.era ? eraVersion(status.era) : ''}`.trimEnd()
      : (status.status === 'failed' ? style.red : style.yellow)(status.status);
  // The reason may quote a server's stderr: first line only, sanitised.
  const reason = status.reason ? `: ${sanitizeLine(status.reason.split('\n')[0], 300)}` : '';
  const hint = status.hint ? ` (${sanitizeLine(status.hint)})` : '';
  return status.status === 'connected' ? `${name}  ${state}` : `${name}  ${state}${reason}${hint}`;
}

async function toolsOf(discovery: Discovery, server: string, io: CliIO, withStatus: boolean) {
  const quiet = sayWaiting(io, new Set([server]));
  try {
    return await Promise.all([discovery.tools(server), withStatus ? discovery.status(server).catch(() => undefined) : undefined]);
  } catch (error) {
    throw await withSuggestion(error, server, discovery);
  } finally {
    quiet();
  }
}

/** `mcpx list server.tool`: one tool, each parameter on its own line; an unknown tool with its close matches. */
async function showTool(
  discovery: Discovery,
  server: string,
  name: string,
  io: CliIO,
  options: { json: boolean; schema: boolean },
): Promise<number> {
  const [tools, status] = await toolsOf(discovery, server, io, !options.json);
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const names = tools.map((t) => t.name);
    throw new McpxError('TOOL_NOT_FOUND', `${server} has no tool named "${name}"${didYouMean(name, names)}`, {
      data: { server, tool: name },
    });
  }
  const style = styleFor(io.stdout, io.env);
  if (options.json) {
    io.stdout.write(`${jsonFor(io.stdout, { server, tool }, style)}\n`);
    return EXIT.OK;
  }
  const era = status?.era ? ` (${eraVersion(status.era)})` : '';
  io.stdout.write(`${style.bold(`${server}.${sanitizeLine(name, 120)}`)}${era}\n\n`);
  for (const line of describeToolInFull(tool, columnsOf(io), style)) io.stdout.write(`${line}\n`);
  if (options.schema) {
    io.stdout.write(indent(`\n${style.dim('input schema:')} ${prettyJson(tool.inputSchema, style)}`, '  '));
    if (tool.outputSchema)
      io.stdout.write(indent(`${style.dim('output schema:')} ${prettyJson(tool.outputSchema, style)}`, '  '));
  }
  const required = parametersOf(tool.inputSchema).filter((p) => p.required && !p.path.includes('.'));
  const words = required.length ? required.map((p) => `${p.path}=…`).join(' ') : 'key=value ...';
  io.stdout.write(`\nCall it: mcpx call ${server}.${sanitizeLine(name, 120)} ${words} (--help for more)\n`);
  return EXIT.OK;
}

async function listTools(
  discovery: Discovery,
  server: string,
  io: CliIO,
  options: { json: boolean; schema: boolean },
): Promise<number> {
  const [tools, status] = await toolsOf(discovery, server, io, !options.json);
  const style = styleFor(io.stdout, io.env);
  if (options.json) {
    const listed = options.schema
      ? tools
      : tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
          name,
          ...(title !== undefined ? { title } : {}),
          ...(description !== undefined ? { description } : {}),
          inputSchema,
          ...(outputSchema !== undefined ? { outputSchema } : {}),
          ...(annotations !== undefined ? { annotations } : {}),
        }));
    io.stdout.write(`${jsonFor(io.stdout, { server, tools: listed }, style)}\n`);
    return EXIT.OK;
  }
  const era = status?.era ? ` (${eraVersion(status.era)})` : '';
  io.stdout.write(`${style.bold(server)}${era}: ${tools.length} tool${tools.length === 1 ? '' : 's'}\n`);
  const width = columnsOf(io);
  for (const tool of tools) {
    io.stdout.write('\n');
    for (const line of describeTool(tool, width, style)) io.stdout.write(`${line}\n`);
    if (options.schema) {
      io.stdout.write(indent(`${style.dim('input schema:')} ${prettyJson(tool.inputSchema, style)}`, '    '));
      if (tool.outputSchema)
        io.stdout.write(indent(`${style.dim('output schema:')} ${prettyJson(tool.outputSchema, style)}`, '    '));
    }
  }
  if (tools.length) io.stdout.write(`\nCall one: mcpx call ${server}.<tool> key=value ... (--help for more)\n`);
  return EXIT.OK;
}

/** The terminal's width; 100 when the output is not a terminal. */
export function columnsOf(io: CliIO): number {
  const columns = (io.stdout as { columns?: number }).columns;
  return io.isTTY && columns && columns > 40 ? columns : 100;
}

function indent(text: string, prefix: string): string {
  return `${text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n')}\n`;
}

/** An unknown server said with its close matches ("did you mean fx?"). */
export async function withSuggestion(error: unknown, server: string, discovery: Discovery): Promise<unknown> {
  if (!isMcpxError(error, 'SERVER_NOT_FOUND')) return error;
  const known = await discovery.servers().catch(() => [] as string[]);
  return new McpxError(
    'SERVER_NOT_FOUND',
    `no server named "${server}"${didYouMean(server, known)}${known.length ? ` (configured: ${known.join(', ')})` : '; no servers are configured'}`,
    { data: { server, known } },
  );
}
