/** The store the CLI, the daemon and the MCP server share: MCPX_STORE_URL when set, else the SQLite file. */
import { resolve } from 'node:path';
import { McpxError } from '../errors.js';
import { defaultSqlitePath } from './default-store.js';
import { openPostgresStore } from './stores/postgres/postgres.js';
import { openRedisStore } from './stores/redis/redis.js';
import { openSqliteStore } from './stores/sqlite/sqlite.js';
import type { BrokerStore } from './types.js';

/** Opens `MCPX_STORE_URL` (see `openStoreUrl`), or `<stateDir>/mcpx.sqlite` when unset. */
export async function openStoreFromEnv(env: Record<string, string | undefined>): Promise<BrokerStore> {
  const url = env.MCPX_STORE_URL;
  return url ? openStoreUrl(url) : openSqliteStore(defaultSqlitePath(env));
}

/**
 * Opens a store named by URL: `sqlite:///abs/file.sqlite` or `sqlite:rel/file.sqlite` (resolved against `cwd`),
 * `redis://`, `rediss://`, `postgres://` or `postgresql://`.
 */
export async function openStoreUrl(url: string, cwd: string = process.cwd()): Promise<BrokerStore> {
  if (/^sqlite:/.test(url)) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path)
      throw new McpxError(
        'CONFIG_INVALID',
        'a sqlite: store URL names a file: sqlite:///var/lib/app/questions.sqlite or sqlite:questions.sqlite',
      );
    return openSqliteStore(resolve(cwd, path));
  }
  if (/^rediss?:\/\//.test(url)) return openRedisStore(url);
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgresStore(url);
  throw new McpxError(
    'CONFIG_INVALID',
    `a store URL must be sqlite:<file>, redis://, rediss://, postgres:// or postgresql:// (MCPX_STORE_URL unset means the SQLite file in the state dir), got ${JSON.stringify(url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@'))}`,
  );
}
