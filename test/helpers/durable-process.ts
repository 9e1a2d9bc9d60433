/**
 * Another process on the same store (run with node --import tsx):
 *   result <storeUrl> <taskId>   opens createMcpx({ store }) over the fixture config, prints mcpx.result(taskId) as JSON
 * The config is the fixture pair the durable tests use: fx (dual-era, modern) and old (legacy-v1).
 */
import { createMcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { isMcpxError } from '../../src/errors.js';
import { stdioFixture } from './fixture-servers.js';

const [mode, storeUrl, taskId] = process.argv.slice(2);
if (mode !== 'result' || !storeUrl || !taskId) {
  process.stderr.write('usage: durable-process result <storeUrl> <taskId>\n');
  process.exitCode = 2;
} else {
  const mcpx = await createMcpx({
    config: { mcpServers: { fx: stdioFixture('dual-era'), old: stdioFixture('legacy-v1') } },
    store: storeUrl,
    eraCache: createMemoryEraCache(),
  });
  try {
    const outcome = await mcpx.result(taskId);
    process.stdout.write(`${JSON.stringify({ pid: process.pid, outcome })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ pid: process.pid, error: isMcpxError(error) ? error.toJSON() : String(error) })}\n`);
  } finally {
    await mcpx.close();
  }
}
