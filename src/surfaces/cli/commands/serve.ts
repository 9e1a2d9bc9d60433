/**
 * `mcpx serve [server...]`: mcpx as an MCP server for agents (Claude Code, Cursor, VS Code, opencode): the
 * upstream servers' tools, with every question they ask forwarded to the client or left answerable here.
 * stdout is the MCP wire; everything mcpx says goes to stderr.
 */
import { parseArgs, UsageError } from '../args.js';
import { findConfigPath } from '../../../config/find.js';
import { EXIT, type Command } from '../io.js';
import { MCPX_VERSION } from '../../../constants.js';

const USAGE = `usage: mcpx serve [server...] [--config file] [--http [--port n] [--host h] [--token-file f | --no-auth]]

Serves the configured MCP servers' tools as one MCP server over stdio (what an mcpServers entry runs:
{"command": "mcpx", "args": ["serve"]}). With one server the tool names are its own; with several they
are server__tool. A question a tool asks is forwarded to the client when it declared elicitation; otherwise
the result says what waits, and the tools mcpx_elicit_list, mcpx_elicit_answer and mcpx_call_result answer
it (as do mcpx elicit and REST, from anywhere).

  --config file   the mcpServers config (default: ./mcpx.json, ./.mcp.json, then the user config)
  --http          serve Streamable HTTP at http://<host>:<port>/mcp instead of stdio (prints the URL)
  --port n        with --http: the port (default 0: a free one)
  --host h        with --http: the interface (default 127.0.0.1)
  --token-file f  with --http: the bearer tokens to accept, one per line (the file must be 0600). Without it:
                  MCPX_SERVE_TOKEN, else <stateDir>/serve-token (made 0600 on first use). Every request must
                  send Authorization: Bearer <token>; the token is printed on stderr at start
  --no-auth       with --http, on loopback only: require no token (any local user may then call every tool)

env: MCPX_SESSION_ID (the session questions belong to), MCPX_ELICIT_TTL_MS, MCPX_STORE_URL,
     MCPX_SERVE_STATE_KEY (HMAC key for request state, >= 32 bytes; default: one kept in the state store),
     MCPX_SERVE_TOKEN (with --http: the bearer token every request must carry, instead of the token file)

exit: 0 when stopped; with --http on a shared store (Redis, Postgres), 70 once another process took over its calls
(it was paused past its lease, MCPX_LEASE_MS): its supervisor starts a fresh one
`;

/** What a client must send, said once at start (a token from MCPX_SERVE_TOKEN is the caller's own: not repeated). */
function authNote(tokens: { tokens: string[]; file?: string; made: boolean } | undefined): string {
  if (!tokens) return 'needs no token (--no-auth): every local user may call every tool';
  if (!tokens.file) return 'needs Authorization: Bearer $MCPX_SERVE_TOKEN';
  const more =
    tokens.tokens.length > 1 ? ` (or another token of ${tokens.file})` : ` (the token is kept in ${tokens.file}, 0600)`;
  return `needs Authorization: Bearer ${tokens.tokens[0]}${more}`;
}

export const command: Command = async (argv, io) => {
  let parsed;
  try {
    parsed = parseArgs(argv, { booleans: ['http', 'no-auth'], strings: ['config', 'port', 'host', 'token-file'] });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`mcpx serve: ${error.message}\n\n${USAGE}`);
    return EXIT.USAGE;
  }
  if (parsed.flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  const http = parsed.flags.http === true;
  const port = parsed.flags.port === undefined ? 0 : Number(parsed.flags.port);
  const httpOnly = ['port', 'host', 'token-file', 'no-auth'].filter((flag) => parsed.flags[flag] !== undefined);
  if (!http && httpOnly.length) {
    const flags = httpOnly.map((flag) => `--${flag}`).join(' and ');
    io.stderr.write(`mcpx serve: ${flags} ${httpOnly.length > 1 ? 'go' : 'goes'} with --http\n\n${USAGE}`);
    return EXIT.USAGE;
  }
  const host = typeof parsed.flags.host === 'string' ? parsed.flags.host : '127.0.0.1';
  const tokenFile = parsed.flags['token-file'] as string | undefined;
  const noAuth = parsed.flags['no-auth'] === true;
  if (noAuth && (tokenFile !== undefined || io.env.MCPX_SERVE_TOKEN)) {
    io.stderr.write(
      `mcpx serve: --no-auth contradicts ${tokenFile !== undefined ? '--token-file' : 'MCPX_SERVE_TOKEN'}: give one or the other\n`,
    );
    return EXIT.USAGE;
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr.write(`mcpx serve: --port takes a port number 0-65535, got ${JSON.stringify(parsed.flags.port)}\n`);
    return EXIT.USAGE;
  }
  const configPath = findConfigPath(parsed.flags.config as string | undefined, io.cwd, io.env);
  const { createServeCore, serveOverStdio, serveOverHttp, isLoopback, serveTokens, RESERVED_NAMES } =
    await import('../../mcp-server/index.js');
  // Checked before any upstream starts: a refusal costs nothing.
  if (noAuth && !isLoopback(host)) {
    io.stderr.write(
      `mcpx serve: --no-auth is allowed on loopback only (127.0.0.1, ::1, localhost), not ${host}: anyone who reaches ${host} could call every tool with your credentials. Drop --no-auth (a bearer token is then required), or serve on 127.0.0.1\n`,
    );
    return EXIT.USAGE;
  }
  const tokens = http && !noAuth ? serveTokens(io.env, tokenFile) : undefined;
  const version = MCPX_VERSION;
  const core = await createServeCore({
    env: io.env,
    cwd: io.cwd,
    ...(configPath ? { configPath } : {}),
    servers: parsed.positional,
    version,
    reserved: RESERVED_NAMES,
  });
  const notifications = (await import('../../daemon/notifications.js')).startDaemonNotifications(core.broker, {
    env: io.env,
    cwd: io.cwd,
    configPath,
  });
  let served: { close(): Promise<void> };
  if (http) {
    try {
      const auth = tokens ? { tokens: tokens.tokens } : { none: true as const };
      const listening = await serveOverHttp(core, { env: io.env, version, host, port, auth });
      served = listening;
      // On stderr before the URL goes to stdout: whoever reads the URL can then rely on it.
      io.stderr.write(`mcpx serve: ${listening.url} ${authNote(tokens)}\n`);
      io.stdout.write(`${listening.url}\n`);
    } catch (error) {
      await notifications.stop();
      await core.close().catch(() => undefined);
      throw error;
    }
  } else {
    served = serveOverStdio(core, {
      env: io.env,
      version,
      onerror: (error) => io.stderr.write(`mcpx serve: ${error.message}\n`),
    });
  }
  // The host ends the connection by closing stdin (or a signal): close upstream connections, then exit.
  let lostLease = false;
  await new Promise<void>((resolve) => {
    // Over HTTP a lost lease ends the process (70, like the daemon), for its supervisor to start a fresh one; over
    // stdio the host would not restart it, so it stays and refuses new calls (docs/serve.md, src/host/lease-lost.ts).
    if (http)
      void core.whenLost.then(() => {
        io.stderr.write(
          'mcpx serve: exiting 70 (lease lost: another process took over our calls while we were paused); a supervisor restarts a fresh one\n',
        );
        lostLease = true;
        resolve();
      });
    // Over stdio the host ends the connection by closing stdin; over HTTP only a signal ends it.
    if (!http) {
      io.stdin.once('end', resolve);
      io.stdin.once('close', resolve);
    }
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await served.close().catch(() => undefined);
  await notifications.stop();
  await core.close().catch(() => undefined);
  return lostLease ? EXIT.SOFTWARE : EXIT.OK;
};
