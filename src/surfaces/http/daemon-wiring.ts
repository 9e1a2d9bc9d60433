/**
 * The real parts of a daemon: the state store (SQLite at `<stateDir>/mcpx.sqlite`, or Redis with MCPX_STORE_URL),
 * a broker that sees every session, and one mcpx instance per session whose questions go to the broker.
 */
import { join } from 'node:path';
import { createBroker, defaultSqlitePath, openRedisStore, openSqliteStore, resolveSession } from '../../broker/index.js';
import type { Broker, BrokerStore, ElicitRequest } from '../../broker/types.js';
import { createFileEraCache } from '../../client/era-cache.js';
import { McpxError } from '../../errors.js';
import { createMcpx } from '../../mcpx.js';
import { stateDir } from '../../paths.js';
import type { ElicitHandler } from '../../types.js';
import type { DaemonParts } from './daemon-core.js';

type Env = Record<string, string | undefined>;

export interface DaemonWiringOptions {
  env: Env;
  cwd: string;
  configPath?: string;
  /** A question's deadline (default 120 s, MCPX_ELICIT_TTL_MS). */
  ttlMs?: number;
  version: string;
}

async function openStore(env: Env): Promise<BrokerStore> {
  const url = env.MCPX_STORE_URL;
  if (url && /^rediss?:\/\//.test(url)) return openRedisStore(url);
  if (url) throw new McpxError('CONFIG_INVALID', `MCPX_STORE_URL must be a redis:// or rediss:// URL (or unset for the SQLite file), got ${JSON.stringify(url)}`);
  return openSqliteStore(defaultSqlitePath(env));
}

function ttlFrom(options: DaemonWiringOptions): number {
  if (options.ttlMs !== undefined) return options.ttlMs;
  const raw = options.env.MCPX_ELICIT_TTL_MS;
  if (raw === undefined || raw === '') return 120_000;
  const ttl = Number(raw);
  if (!Number.isFinite(ttl) || ttl <= 0) throw new McpxError('CONFIG_INVALID', `MCPX_ELICIT_TTL_MS must be a positive number of milliseconds, got ${JSON.stringify(raw)}`);
  return ttl;
}

/**
 * The daemon has no person and no script to answer: each question is opened in the broker under its own id and
 * left pending there, for `mcpx elicit`, REST or any other surface to answer.
 */
function leaveInBroker(broker: Broker, binding: { session: string; sessionSource: ElicitRequest['sessionSource'] }, now: () => number): ElicitHandler {
  return async (question, context) => {
    await broker.openRequest({
      id: question.id,
      trace: question.callId,
      server: question.server,
      tool: question.tool,
      mode: question.mode,
      message: question.message,
      era: question.era,
      session: binding.session,
      sessionSource: binding.sessionSource,
      ttlMs: Math.max(1, context.expiresAt - now()),
      ...(question.requestedSchema ? { requestedSchema: question.requestedSchema } : {}),
      ...(question.url ? { url: question.url } : {}),
      ...(question.key ? { key: question.key } : {}),
      ...(question.audience ? { audience: question.audience } : {}),
      ...(question.meta ? { meta: question.meta } : {}),
    });
    return undefined;
  };
}

export async function openDaemonParts(options: DaemonWiringOptions): Promise<DaemonParts> {
  const { env, cwd, configPath } = options;
  const ttlMs = ttlFrom(options);
  const store = await openStore(env);
  const broker = createBroker({ store, allowAnySession: true, ttlMs });
  const own = resolveSession(env, { ...(configPath ? { configPath } : {}), cwd });
  const eraCache = createFileEraCache(join(stateDir(env), 'era-cache.json'));
  return {
    broker,
    taskKeyv: store.keyv,
    defaultSession: own.session,
    async openHost(session, sessionSource, stampingBroker) {
      const mcpx = await createMcpx({
        config: configPath ?? { mcpServers: {} },
        cwd,
        env,
        onElicit: leaveInBroker(stampingBroker, session === own.session ? own : { session, sessionSource }, Date.now),
        answerLater: true,
        elicitTtlMs: ttlMs,
        eraCache,
        clientInfo: { name: 'mcpx-daemon', version: options.version },
      });
      return mcpx;
    },
    async close() {
      await broker.close();
      await store.close();
    },
  };
}
