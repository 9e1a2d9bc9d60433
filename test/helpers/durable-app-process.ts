/**
 * An app embedding mcpx on a shared store, as its own process (run with node --import tsx):
 *   durable-app-process <storeUrl>
 * opens createMcpx({ store }) over the fixture config (fx: dual-era, modern), prints `ready <pid>`, then runs one
 * command per stdin line and prints one JSON line each: `call <tool> <json args>` (callTool on fx) and
 * `result <task>` (result() with a short timeout): `{ outcome }`, or `{ error }` (the McpxError as JSON, or a message).
 */
import { createInterface } from 'node:readline';
import { createMcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { isMcpxError } from '../../src/errors.js';
import { stdioFixture } from './fixture-servers.js';

const [storeUrl] = process.argv.slice(2);
const mcpx = await createMcpx({
  config: { mcpServers: { fx: { ...stdioFixture('dual-era'), era: 'modern' } } },
  store: storeUrl!,
  eraCache: createMemoryEraCache(),
});
process.stdout.write(`ready ${process.pid}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [command, name, json] = line.split(' ');
  try {
    const outcome =
      command === 'call'
        ? await mcpx.callTool('fx', name!, JSON.parse(json ?? '{}') as Record<string, unknown>)
        : await mcpx.result(name!, { timeoutMs: 2_000 });
    process.stdout.write(`${JSON.stringify({ outcome })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: isMcpxError(error) ? error.toJSON() : { message: String(error) } })}\n`);
  }
}
await mcpx.close();
