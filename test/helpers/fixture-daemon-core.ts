/** A daemon core whose sessions each get an mcpx over the in-memory fixture servers (test/tasks/helpers.ts). */
import { openMemoryStore, type StoreBroker } from '../../src/broker/index.js';
import { createElicitationPipeline } from '../../src/pipeline/pipeline.js';
import { createDaemonCore, type DaemonCore, type DaemonCoreOptions } from '../../src/surfaces/daemon/daemon-core.js';
import { fixtureMcpx } from '../tasks/helpers.js';

export interface FixtureCoreOptions extends Omit<DaemonCoreOptions, 'parts' | 'version' | 'pid'> {
  pid?: number;
  /** The broker's default question deadline. */
  ttlMs?: number;
  /** The questions' TTL of each session's mcpx. */
  elicitTtlMs?: number;
  /** Filled with each session as its mcpx opens, and as it closes. */
  opened?: string[];
  closed?: string[];
}

export async function fixtureDaemonCore(options: FixtureCoreOptions): Promise<{ core: DaemonCore; broker: StoreBroker }> {
  const { ttlMs, elicitTtlMs, opened, closed, pid = 1, ...coreOptions } = options;
  // The core's host opens the broker over the store; each session's questions are opened through it.
  let broker: StoreBroker | undefined;
  const core = await createDaemonCore({
    parts: {
      store: openMemoryStore(),
      ...(ttlMs ? { ttlMs } : {}),
      env: {},
      opened: (hostBroker) => void (broker = hostBroker),
      defaultSession: 'default',
      openHost: async (session, sessionSource) => {
        opened?.push(session);
        const mcpx = await fixtureMcpx(
          createElicitationPipeline({ broker: broker!, session: { session, sessionSource } }),
          elicitTtlMs ? { elicitTtlMs } : {},
        );
        return {
          ...mcpx,
          close: async () => {
            closed?.push(session);
            await mcpx.closeFixtures();
          },
        };
      },
      close: async () => undefined,
    },
    version: 'test',
    pid,
    ...coreOptions,
  });
  return { core, broker: core.broker };
}
