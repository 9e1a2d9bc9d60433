/**
 * The real parts of a daemon: the state store (SQLite at `<stateDir>/mcpx.sqlite`, or Redis or Postgres with MCPX_STORE_URL),
 * over which the daemon's host opens a broker that sees every session, and one mcpx instance per session whose
 * questions go to that broker.
 */
import { dirname, join, resolve } from 'node:path';
import { createHostAuth } from '../../auth/host-auth.js';
import type { Auth } from '../../auth/index.js';
import { resolveSession } from '../../broker/index.js';
import { openStoreFromEnv } from '../../broker/index.js';
import { createFileEraCache } from '../../client/index.js';
import { configStamp, loadConfig, type WebListenConfig } from '../../config/index.js';
import { createMcpx, DEFAULT_ELICIT_TTL_MS, type Mcpx } from '../../mcpx.js';
import { stateDir } from '../../paths.js';
import { ttlFromEnv } from '../../policy/index.js';
import type { DaemonParts } from './daemon-core.js';
import { McpxError } from '../../errors.js';
import { parseSize } from '../../runtime/limits.js';
import { SURFACE_DELIVERS } from '../delivers.js';
import type { Notifications } from '../notify/index.js';
import { startDaemonNotifications } from './notifications.js';

type Env = Record<string, string | undefined>;

export interface DaemonWiringOptions {
  env: Env;
  cwd: string;
  configPath?: string;
  /** A question's deadline: this, else the policy's `ttl`, else MCPX_ELICIT_TTL_MS, else 120 s. */
  ttlMs?: number;
  version: string;
  /** Tell the config's `notify` list of questions (not inline: a question there ends with the command). */
  notify?: boolean;
}

function ttlFrom(options: DaemonWiringOptions): number {
  return options.ttlMs ?? ttlFromEnv(options.env.MCPX_ELICIT_TTL_MS, DEFAULT_ELICIT_TTL_MS);
}

/** The host with calls that ignore a caller's per-call TTL (its own is set by the config). */
function keepingOwnTtl(mcpx: Mcpx): Mcpx {
  const own = <T extends { elicitTtlMs?: number }>(callOptions: T | undefined): Omit<T, 'elicitTtlMs'> | undefined => {
    if (!callOptions) return undefined;
    const { elicitTtlMs: _ignored, ...rest } = callOptions;
    return rest;
  };
  return {
    ...mcpx,
    callTool: (server, tool, args, callOptions) => mcpx.callTool(server, tool, args, own(callOptions)),
    getPrompt: (server, name, args, callOptions) => mcpx.getPrompt(server, name, args, own(callOptions)),
    readResource: (server, uri, callOptions) => mcpx.readResource(server, uri, own(callOptions)),
    resume: (continuation, answers, resumeOptions) => mcpx.resume(continuation, answers, own(resumeOptions)),
  };
}

export async function openDaemonParts(options: DaemonWiringOptions): Promise<DaemonParts> {
  const { env, cwd, configPath } = options;
  // Checked now, so a broken config or policy stops the daemon from starting with a clear error.
  const { policy, config } = loadConfig({ config: configPath ?? { mcpServers: {} }, cwd, env });
  const ttlMs = options.ttlMs ?? policy.ttlMs ?? ttlFrom(options);
  const maxBodyBytes = maxBodyFromEnv(env.MCPX_DAEMON_MAX_BODY);
  const store = await openStoreFromEnv(env);
  const own = resolveSession(env, { ...(configPath ? { configPath } : {}), cwd });
  const eraCache = createFileEraCache(join(stateDir(env), 'era-cache.json'));
  // Both stand on the host's broker, told once it is open (before any session's instance opens).
  let notifications: Notifications | undefined;
  let auth: Auth | undefined;
  return {
    store,
    ttlMs,
    env,
    opened(broker) {
      if (options.notify !== false) notifications = startDaemonNotifications(broker, { env, cwd, configPath });
      // One OAuth client for every session: one loopback redirect, which the daemon owns, answers sign-in questions.
      auth = createHostAuth({ stateDir: stateDir(env), env, broker });
    },
    defaultSession: own.session,
    configStamp: () => configStamp(configPath),
    ...(config.web ? { web: withAbsolutePaths(config.web, configPath ? dirname(configPath) : cwd) } : {}),
    ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
    async openHost(session, sessionSource, pipeline) {
      // Read again for each new instance: an edited config (servers, policy) applies without a restart.
      const loaded = loadConfig({ config: configPath ?? { mcpServers: {} }, cwd, env });
      const { policy } = loaded;
      const ttlMs = options.ttlMs ?? policy.ttlMs ?? ttlFrom(options);
      const mcpx = await createMcpx({
        loaded,
        cwd,
        env,
        // No person and no script answers here: the policy, then the broker, where the question waits for
        // `mcpx elicit`, REST or any other surface.
        onElicit: pipeline({ policy, session: session === own.session ? own : { session, sessionSource }, env }),
        ...SURFACE_DELIVERS,
        elicitTtlMs: ttlMs,
        eraCache,
        auth: auth!,
        clientInfo: { name: 'mcpx-daemon', version: options.version },
        // `mcpx call` and REST: unknown names get their close matches, bad arguments the field, before anything is sent.
        checkCalls: true,
      });
      // The config's elicit.ttl wins over a caller's MCPX_ELICIT_TTL_MS, as it does in `mcpx run`.
      return options.ttlMs !== undefined || policy.ttlMs !== undefined ? keepingOwnTtl(mcpx) : mcpx;
    },
    async close() {
      await notifications?.stop();
      await auth?.close();
    },
  };
}

/** cert and key as written are relative to the config file's folder. */
function withAbsolutePaths(web: WebListenConfig, base: string): WebListenConfig {
  return {
    ...web,
    ...(web.cert !== undefined ? { cert: resolve(base, web.cert) } : {}),
    ...(web.key !== undefined ? { key: resolve(base, web.key) } : {}),
  };
}

/** MCPX_DAEMON_MAX_BODY (`4m`, `512k`, bytes): the largest REST request body the daemon takes. */
function maxBodyFromEnv(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let bytes: number;
  try {
    bytes = parseSize(text, 'MCPX_DAEMON_MAX_BODY');
  } catch (error) {
    throw new McpxError('CONFIG_INVALID', (error as Error).message, { data: { variable: 'MCPX_DAEMON_MAX_BODY' } });
  }
  if (!(bytes > 0))
    throw new McpxError('CONFIG_INVALID', `MCPX_DAEMON_MAX_BODY must be a positive size, e.g. 1m`, {
      data: { variable: 'MCPX_DAEMON_MAX_BODY' },
    });
  return bytes;
}
