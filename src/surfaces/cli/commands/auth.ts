/**
 * `mcpx auth <server>` signs in to an OAuth-protected Streamable HTTP server (the URL is shown with its domain;
 * the browser comes back to a loopback redirect), `mcpx auth status` says who is signed in and where the tokens
 * are kept, `mcpx auth logout <server>` forgets them. Tokens are never printed.
 */
import { createAuth, secondsLeft, serverCredentials } from '../../../auth/index.js';
import { loadConfig } from '../../../config/load.js';
import { isHttpServer } from '../../../config/schema.js';
import { createMcpx } from '../../../mcpx.js';
import { stateDir } from '../../../paths.js';
import { openSecretStore } from '../../../secrets/index.js';
import { parseArgs, UsageError } from '../args.js';
import { EXIT, type Command } from '../io.js';
import { sanitizeLine } from '../sanitize.js';
import { SURFACE_DELIVERS } from '../../delivers.js';

const USAGE = `usage: mcpx auth <server>          sign in (shows the sign-in URL; the browser returns to 127.0.0.1)
       mcpx auth status            who is signed in, and where tokens are kept (keychain or file)
       mcpx auth logout <server>   forget the server's tokens and registered client
`;

export const command: Command = async (argv, io) => {
  const { flags, positional } = parseArgs(argv, { booleans: [], strings: [] });
  if (flags.help || positional.length === 0) {
    io.stdout.write(USAGE);
    return flags.help ? EXIT.OK : EXIT.USAGE;
  }
  const { config } = loadConfig({ cwd: io.cwd, env: io.env });
  const store = await openSecretStore({ stateDir: stateDir(io.env) });
  const httpServers = Object.entries(config.mcpServers).filter(([, server]) => isHttpServer(server));
  const [verb, name] = positional;

  if (verb === 'status') {
    io.stdout.write(`tokens are stored in the ${store.kind === 'keychain' ? 'OS keychain' : 'file'}: ${store.location}\n`);
    for (const [server] of httpServers) {
      const credentials = serverCredentials(store, server);
      const issuer = await credentials.currentIssuer();
      const tokens = issuer ? await credentials.tokens(issuer) : undefined;
      if (!issuer || !tokens) {
        io.stdout.write(`${server}: not signed in\n`);
        continue;
      }
      const left = secondsLeft(tokens);
      const expiry = left === undefined ? '' : left > 0 ? `, access token expires in ${left}s` : ', access token expired';
      io.stdout.write(`${server}: signed in with ${issuer}${expiry}${tokens.refresh_token ? ', can refresh' : ''}\n`);
    }
    return EXIT.OK;
  }
  if (verb === 'logout') {
    if (!name) throw new UsageError('mcpx auth logout takes a server name');
    const forgotten = await serverCredentials(store, name).forget('all');
    io.stdout.write(
      forgotten ? `${name}: signed out (tokens and registered client forgotten)\n` : `${name}: was not signed in\n`,
    );
    return EXIT.OK;
  }
  if (positional.length > 1) throw new UsageError(`unexpected ${JSON.stringify(positional[1])}`);
  const server = verb!;
  if (!httpServers.some(([n]) => n === server))
    throw new UsageError(`"${server}" is not a configured http server (mcpx auth signs in to Streamable HTTP servers)`);
  const auth = createAuth({
    store,
    present: async ({ url }) => {
      io.stderr.write(
        `${server} asks you to sign in at ${sanitizeLine(url.host)}:\n  ${sanitizeLine(url.toString(), 8000)}\nopen it in a browser; mcpx waits for it to come back.\n`,
      );
    },
  });
  const mcpx = await createMcpx({ config, cwd: io.cwd, env: io.env, auth, ...SURFACE_DELIVERS });
  try {
    const tools = await mcpx.listTools(server);
    io.stdout.write(`${server}: signed in (${tools.length} tools)\n`);
    return EXIT.OK;
  } finally {
    await mcpx.close();
    await auth.close();
  }
};
