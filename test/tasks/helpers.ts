/** Wiring for task tests: a real mcpx over in-memory fixture servers. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import type { ElicitHandler } from '../../src/types.js';
import { inMemoryFixture } from '../helpers/fixture-servers.js';

/** An mcpx with `modern` (dual-era server, pinned modern) and `legacy` (v1 server) served in this process. */
export async function fixtureMcpx(
  onElicit: ElicitHandler,
  options: { elicitTtlMs?: number } = {},
): Promise<Mcpx & { closeFixtures(): Promise<void> }> {
  const fixtures: Array<{ close(): Promise<void> }> = [];
  const connect = (kind: 'dual-era' | 'legacy-v1') => () => {
    const fixture = inMemoryFixture(kind);
    fixtures.push(fixture);
    return fixture.transport;
  };
  const mcpx = await createMcpx({
    config: { mcpServers: {} },
    env: { MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-tasks-')) },
    servers: {
      modern: { connect: connect('dual-era'), era: 'modern' },
      legacy: { connect: connect('legacy-v1'), era: 'legacy' },
    },
    onElicit,
    answerLater: true,
    eraCache: createMemoryEraCache(),
    ...(options.elicitTtlMs ? { elicitTtlMs: options.elicitTtlMs } : {}),
  });
  return {
    ...mcpx,
    async closeFixtures() {
      await mcpx.close();
      await Promise.all(fixtures.map((f) => f.close().catch(() => undefined)));
    },
  };
}
