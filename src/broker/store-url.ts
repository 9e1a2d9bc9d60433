/** The store the CLI, the daemon and the MCP server share: MCPX_STORE_URL when set, else the SQLite file. */
import { McpxError } from '../errors.js';
import { defaultSqlitePath } from './default-store.js';
import { openPostgresStore } from './stores/postgres.js';
import { openRedisStore } from './stores/redis.js';
import { openSqliteStore } from './stores/sqlite.js';
import type { BrokerStore } from './types.js';

/** Opens `MCPX_STORE_URL` (redis://, rediss://, postgres://, postgresql://), or `<stateDir>/mcpx.sqlite` when unset. */
export async function openStoreFromEnv(env: Record<string, string | undefined>): Promise<BrokerStore> {
  const url = env.MCPX_STORE_URL;
  if (!url) return openSqliteStore(defaultSqlitePath(env));
  if (/^rediss?:\/\//.test(url)) return openRedisStore(url);
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgresStore(url);
  throw new McpxError(
    'CONFIG_INVALID',
    `MCPX_STORE_URL must be a redis://, rediss://, postgres:// or postgresql:// URL (or unset for the SQLite file), got ${JSON.stringify(url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@'))}`,
  );
}
