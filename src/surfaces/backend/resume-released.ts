/**
 * `mcpx task result` with no daemon, for a modern call its asking process let go (an `mcpx serve` whose client
 * went away): this command adopts it and resumes it with the answers given meanwhile, connecting the servers of
 * the config the call was made with. Loaded only on that path: it opens upstream connections.
 */
import type { BrokerStore } from '../../broker/index.js';
import { createMcpx } from '../../mcpx.js';
import { SURFACE_DELIVERS } from '../delivers.js';
import type { TaskRecord } from '../../tasks/types.js';
import { MCPX_VERSION } from '../../constants.js';

export async function resumeReleased(
  task: TaskRecord,
  options: { store: BrokerStore; env: Record<string, string | undefined>; cwd: string; configPath?: string; waitMs: number },
): Promise<void> {
  const config = task.config ?? options.configPath;
  const mcpx = await createMcpx({
    ...(config !== undefined ? { config } : {}),
    store: options.store,
    env: options.env,
    cwd: options.cwd,
    clientInfo: { name: 'mcpx', version: MCPX_VERSION },
    ...SURFACE_DELIVERS,
  });
  try {
    // A failed call is in its record too; the caller reads the record, so only the driving matters here.
    await mcpx.result(task.id, { timeoutMs: options.waitMs }).catch(() => undefined);
  } finally {
    // Still waiting when the time ran out: let go again, for the next one who asks.
    await mcpx.close();
  }
}
