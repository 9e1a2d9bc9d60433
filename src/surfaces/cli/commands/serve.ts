/**
 * `mcpx serve [server...]`: mcpx as an MCP server for agents (Claude Code, Cursor, VS Code, opencode): the
 * upstream servers' tools, with every question they ask forwarded to the client or left answerable here.
 * stdout is the MCP wire; everything mcpx says goes to stderr.
 */
import { parseArgs, UsageError } from '../args.js';
import { findConfigPath } from '../connect.js';
import { EXIT, type Command } from '../io.js';

const USAGE = `usage: mcpx serve [server...] [--config file]

Serves the configured MCP servers' tools as one MCP server over stdio (what an mcpServers entry runs:
{"command": "mcpx", "args": ["serve"]}). With one server the tool names are its own; with several they
are server__tool. A question a tool asks is forwarded to the client when it declared elicitation; otherwise
the result says what waits, and the tools mcpx_elicit_list, mcpx_elicit_answer and mcpx_call_result answer
it (as do mcpx elicit and REST, from anywhere).

  --config file   the mcpServers config (default: ./mcpx.json, ./.mcp.json, then the user config)

env: MCPX_SESSION_ID (the session questions belong to), MCPX_ELICIT_TTL_MS, MCPX_STORE_URL,
     MCPX_SERVE_STATE_KEY (HMAC key for request state, >= 32 bytes; default random per process)
`;

export const command: Command = async (argv, io) => {
  let parsed;
  try {
    parsed = parseArgs(argv, { strings: ['config'] });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`mcpx serve: ${error.message}\n\n${USAGE}`);
    return EXIT.USAGE;
  }
  if (parsed.flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  const configPath = findConfigPath(parsed.flags.config as string | undefined, io.cwd, io.env);
  const { createServeCore, serveOverStdio } = await import('../../mcp-server/index.js');
  const version = '0.1.0';
  const core = await createServeCore({ env: io.env, cwd: io.cwd, ...(configPath ? { configPath } : {}), servers: parsed.positional, version, reserved: (await import('../../mcp-server/index.js')).RESERVED_NAMES });
  const served = serveOverStdio(core, { env: io.env, version, onerror: (error) => io.stderr.write(`mcpx serve: ${error.message}\n`) });
  // The host ends the connection by closing stdin (or a signal): close upstream connections, then exit.
  await new Promise<void>((resolve) => {
    io.stdin.once('end', resolve);
    io.stdin.once('close', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await served.close().catch(() => undefined);
  await core.close().catch(() => undefined);
  return EXIT.OK;
};
