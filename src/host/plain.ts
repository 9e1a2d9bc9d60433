/**
 * The upstream connections of one mcpx instance (createMcpx without a store): the config's servers, adapters and
 * host-wired ones in one pool, every question handed to one handler.
 */
import { dirname, join } from 'node:path';
import { DEFAULT_ELICIT_TTL_MS, DEFAULT_MAX_QUESTIONS_PER_CALL, MCPX_VERSION } from '../constants.js';
import { adapterConnectors } from '../adapters/connectors.js';
import { loadConfig } from '../config/load.js';
import { createClientPool } from '../client/index.js';
import { withCallChecks } from '../client/index.js';
import { createFileEraCache } from '../client/index.js';
import { stateDir } from '../paths.js';
import type { Mcpx, McpxOptions } from '../mcpx.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export async function createPlainMcpx(options: McpxOptions): Promise<Mcpx> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const loaded = options.loaded ?? loadConfig({ ...(options.config !== undefined ? { config: options.config } : {}), cwd, env });
  // OpenAPI and CLI adapters are in-process servers; host-wired servers of the same name win.
  const adapters = adapterConnectors(loaded.config.adapters, {
    baseDir: loaded.path ? dirname(loaded.path) : cwd,
    env,
    ...(loaded.config.secretForms ? { secretForms: loaded.config.secretForms } : {}),
  });
  const servers = { ...adapters, ...(options.servers ?? {}) };
  const pool = createClientPool({
    config: loaded.config,
    ...(Object.keys(servers).length ? { servers } : {}),
    cwd,
    env,
    ...(options.onElicit ? { onElicit: options.onElicit } : {}),
    ...(options.openUrl ? { openUrl: options.openUrl } : {}),
    ...(options.urlOpenedByAnswerer ? { urlOpenedByAnswerer: true } : {}),
    ...(options.secrets ? { secrets: async () => options.secrets! } : {}),
    answerLater: options.answerLater ?? false,
    elicitTtlMs: options.elicitTtlMs ?? DEFAULT_ELICIT_TTL_MS,
    maxQuestionsPerCall: options.maxQuestionsPerCall ?? loaded.policy.maxQuestionsPerCall ?? DEFAULT_MAX_QUESTIONS_PER_CALL,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    eraCache: options.eraCache ?? createFileEraCache(join(stateDir(env), 'era-cache.json')),
    ...(options.auth ? { auth: options.auth } : {}),
    ...(options.onResourceUpdated ? { onResourceUpdated: options.onResourceUpdated } : {}),
    ...(options.forward ? { forward: options.forward } : {}),
    clientInfo: options.clientInfo ?? { name: 'mcpx', version: MCPX_VERSION },
    configSource:
      loaded.path ?? (loaded.searched.length ? `none found; looked in ${loaded.searched.join(', ')}` : 'the config object'),
  });
  const host = { ...pool, configPath: loaded.path };
  return options.checkCalls ? withCallChecks(host) : host;
}
