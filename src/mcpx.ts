/**
 * createMcpx: the Node API. Reads the `mcpServers` config, opens connections lazily in the era each server speaks,
 * and hands every server question to one handler; a question nobody answers here comes back as input-required.
 */
import { DEFAULT_ELICIT_TTL_MS } from './constants.js';
import type { LoadedConfig } from './config/load.js';
import type { McpxConfig } from './config/schema.js';
import type { ClientPool } from './client/index.js';
import type { ServerConnector, ServerRequestForwarding } from './client/index.js';
import type { EraCache } from './client/index.js';
import type { Auth } from './auth/index.js';
import type { SecretStore } from './secrets/types.js';
import type { ElicitHandler } from './types.js';
import { createDurableMcpx, type DurableMcpx, type PolicyOption, type StoreOption } from './mcpx-durable.js';
import { createPlainMcpx, DEFAULT_REQUEST_TIMEOUT_MS } from './host/plain.js';

export interface McpxOptions {
  /** A config object, or a config file path; otherwise found: MCPX_CONFIG, ./mcpx.json, ./.mcp.json, <configDir>/mcpx.json. */
  config?: McpxConfig | string;
  /** A config the host already loaded with loadConfig (its file is not read again); wins over `config`. */
  loaded?: LoadedConfig;
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Answers questions (both eras). Return undefined to leave one unanswered: the call comes back input-required. */
  onElicit?: ElicitHandler;
  /** Opens a URL for a url-mode question. Present: url mode is declared; absent: it never is. */
  openUrl?: (url: string) => Promise<boolean>;
  /**
   * Declare url mode with no openUrl, because whoever answers a url question opens the page on their own side
   * (the daemon: the terminal form, the inbox, a REST client). Accept is then passed on as the person's consent.
   */
  urlOpenedByAnswerer?: boolean;
  /** Where asked credentials (`{"ask": ...}` config entries) are kept; default: the keychain, else `<stateDir>/secrets.json`. */
  secrets?: SecretStore;
  /** Declare form elicitation even with no handler: questions come back as input-required. */
  answerLater?: boolean;
  /**
   * Check calls before sending them, as `mcpx call` and `mcpx run` do: an unknown server, tool, prompt or resource
   * fails with its close matches (TOOL_NOT_FOUND, PROMPT_NOT_FOUND, RESOURCE_NOT_FOUND), and arguments that miss the
   * tool's input schema fail with ARGUMENTS_INVALID naming the field, nothing sent. Default false: the server judges.
   */
  checkCalls?: boolean;
  /** A question's deadline (default 120 s). Legacy calls are held open at least this long. */
  elicitTtlMs?: number;
  /**
   * Questions one call may ask before mcpx stops it with QUESTION_LIMIT (a server that keeps asking); default the
   * config's `elicit.maxQuestionsPerCall`, else 50.
   */
  maxQuestionsPerCall?: number;
  /** How long a server may work on one request without a word (default 60 s); never counts while a question waits. */
  requestTimeoutMs?: number;
  /** Where era verdicts are kept; default `<stateDir>/era-cache.json`. */
  eraCache?: EraCache;
  clientInfo?: { name: string; version: string };
  /** Servers wired by the host (custom or in-memory transports), beside the configured ones. */
  servers?: Record<string, ServerConnector>;
  /**
   * Where questions live (openSqliteStore, openRedisStore, a keyv instance over one, or a URL: `sqlite:file`,
   * `redis://`, `postgres://`). With it, calls are tasks in that store and the instance answers, lists and resumes
   * them from any process on it (see DurableMcpx).
   */
  store?: StoreOption;
  /** With `store`: the policy that answers before anyone is asked; default the config file's `elicit` block. */
  policy?: PolicyOption;
  /** With `store`: the session the questions belong to; default MCPX_SESSION_ID, else a fingerprint of config + cwd. */
  session?: string;
  /** OAuth for Streamable HTTP servers (`createAuth` from src/auth); the host closes it. */
  auth?: Auth;
  /** A server said a resource changed (`notifications/resources/updated`, after a subscribe). */
  onResourceUpdated?: (server: string, uri: string) => void;
  /** Where the servers' `sampling/createMessage` and `roots/list` go; each is declared to them only when given. */
  forward?: ServerRequestForwarding;
}

export interface Mcpx extends ClientPool {
  /** The config file in use, when one was read. */
  readonly configPath: string | undefined;
}

export { DEFAULT_ELICIT_TTL_MS, DEFAULT_REQUEST_TIMEOUT_MS };

export function createMcpx(options: McpxOptions & { store: StoreOption }): Promise<DurableMcpx>;
export function createMcpx(options?: McpxOptions): Promise<Mcpx>;
export async function createMcpx(options: McpxOptions = {}): Promise<Mcpx | DurableMcpx> {
  if (options.store !== undefined) return createDurableMcpx({ ...options, store: options.store });
  return createPlainMcpx(options);
}
