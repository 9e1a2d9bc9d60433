/**
 * One OAuth-using caller in its own process, on the built package (dist): `node oauth-call.mjs <mcp url>` with
 * MCPX_STATE_DIR set, and optionally the server's `oauth` block as JSON (`node oauth-call.mjs <url> '{"grant": ...}'`). Opens mcpx over the file secret store, says `ready`, waits for a line on stdin (so that
 * many callers start their calls at once), calls `whoami` and prints the outcome as one JSON line. A sign-in is
 * never expected here: being asked for one fails the call.
 */
import { createInterface } from 'node:readline';
import { createMcpx } from '../../dist/index.js';
import { createAuth, openSecretStore } from '../../dist/auth.js';

const url = process.argv[2];
const oauth = process.argv[3] ? JSON.parse(process.argv[3]) : undefined;
const auth = createAuth({
  store: await openSecretStore({ stateDir: process.env.MCPX_STATE_DIR, prefer: 'file' }),
  present: async () => {
    throw new Error('a sign-in was asked for');
  },
});
const mcpx = await createMcpx({ config: { mcpServers: { notes: { url, ...(oauth ? { oauth } : {}) } } }, auth });
process.stdout.write('ready\n');
await new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve));
try {
  const outcome = await mcpx.callTool('notes', 'whoami', {});
  process.stdout.write(`${JSON.stringify({ status: outcome.status, result: outcome.result?.structuredContent })}\n`);
} finally {
  await mcpx.close();
  await auth.close();
}
