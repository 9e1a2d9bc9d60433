/**
 * `mcpx elicit web [--open] [--json]`: a sign-in link to the daemon's web inbox. The link carries a one-time code
 * in its fragment (never sent to a server, so it reaches no log and no Referer header); the page trades it for a
 * session cookie. A browser reaches the daemon on its loopback port: the daemon opens one (a free port) when it
 * has none yet.
 */
import { isMcpxError } from '../../../errors.js';
import { ensureDaemon } from '../../daemon/client.js';
import { findConfigPath } from '../../../config/find.js';
import { EXIT, type CliIO } from '../io.js';
import { openUrl } from '../open-url.js';

export async function elicitWeb(io: CliIO, options: { config?: string; open: boolean; json: boolean }): Promise<number> {
  const fail = (message: string): number => {
    io.stderr.write(`mcpx elicit web: ${message}\n`);
    return EXIT.FAILURE;
  };
  let client;
  try {
    const configPath = findConfigPath(options.config, io.cwd, io.env);
    client = await ensureDaemon(io.env, configPath, { cwd: io.cwd, inlineFallback: false });
  } catch (error) {
    return fail(isMcpxError(error) ? error.message : (error as Error).message);
  }
  try {
    const response = await client.fetch('/ui/code', { method: 'POST' });
    if (!response.ok)
      return fail(
        `the daemon refused a sign-in code (${response.status}); is it older than this mcpx? Restart it: mcpx daemon stop`,
      );
    const reply = (await response.json()) as { path: string; expiresAt: number; port?: number };
    const { path, expiresAt } = reply;
    const port = reply.port ?? client.state?.port;
    if (port === undefined)
      return fail(
        'the daemon runs inside this command (MCPX_DAEMON=inline), where no browser can reach it; unset MCPX_DAEMON and run this again.',
      );
    const url = `http://127.0.0.1:${port}${path}`;
    if (options.json) io.stdout.write(`${JSON.stringify({ url, expiresAt })}\n`);
    else {
      io.stdout.write(
        `Open the inbox in a browser on this machine (the link signs it in once, until ${new Date(expiresAt).toISOString().replace(/\.\d+Z$/, 'Z')}):\n\n  ${url}\n\n`,
      );
    }
    if (options.open && !(await openUrl(url, io.env)))
      io.stderr.write('mcpx elicit web: could not open a browser; open the link above yourself.\n');
    return EXIT.OK;
  } finally {
    await client.close();
  }
}
