/** A daemon core whose sessions each get an mcpx over the in-memory fixture servers (test/tasks/helpers.ts). */
import { createBroker, type StoreBroker } from '../../src/broker/index.js';
import { createElicitationPipeline } from '../../src/pipeline/pipeline.js';
import { createDaemonCore, type DaemonCore, type DaemonCoreOptions } from '../../src/surfaces/daemon/daemon-core.js';
import { fixtureMcpx } from '../tasks/helpers.js';

export interface FixtureCoreOptions extends Omit<DaemonCoreOptions, 'parts' | 'version' | 'pid'> {
  pid?: number;
  broker?: StoreBroker;
  /** The questions' TTL of each session's mcpx. */
  elicitTtlMs?: number;
  /** Filled with each session as its mcpx opens, and as it closes. */
  opened?: string[];
  closed?: string[];
}

export async function fixtureDaemonCore(options: FixtureCoreOptions): Promise<{ core: DaemonCore; broker: StoreBroker }> {
  const { broker = createBroker({ allowAnySession: true }), elicitTtlMs, opened, closed, pid = 1, ...coreOptions } = options;
  const core = await createDaemonCore({
    parts: {
      broker,
      taskKeyv: broker.store.keyv,
      defaultSession: 'default',
      openHost: async (session, sessionSource) => {
        opened?.push(session);
        const mcpx = await fixtureMcpx(
          createElicitationPipeline({ broker, session: { session, sessionSource } }),
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
      close: () => broker.close(),
    },
    version: 'test',
    pid,
    ...coreOptions,
  });
  return { core, broker };
}
