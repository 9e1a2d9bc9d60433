/**
 * The `mcpServers` config format (Claude Desktop, Cursor, VS Code, Claude Code's .mcp.json), validated with zod.
 * Unknown keys other tools keep in the same file (`disabled`, `autoApprove`...) are tolerated and ignored.
 */
import * as z from 'zod';
import type { AdapterConfig } from './adapters.js';
import type { NotifySink } from './notify-schema.js';
import type { WebListenConfig } from './web-schema.js';
import { ttlSchema } from '../policy/schema.js';
import { askedValueSchema, oauthSchema } from './oauth-schema.js';

export { askedValueSchema, type AskedValue } from './oauth-schema.js';

/** How a server's protocol era is chosen: probe once and cache (`auto`, the default), or pin one era. */
export const eraSettingSchema = z.enum(['auto', 'legacy', 'modern']);
export type EraSetting = z.infer<typeof eraSettingSchema>;

/** env and headers: plain strings, or values asked for at first use. */
const credentialMap = z.record(z.string(), z.union([z.string(), askedValueSchema]));

/** One tool's own settings: its questions' deadline, over its server's. */
export const toolSettingsSchema = z.strictObject({ elicitTtl: ttlSchema.optional() });

const commonFields = {
  era: eraSettingSchema.optional(),
  /** Per request, while the server works (never while a question waits). */
  timeoutMs: z.number().int().positive().optional(),
  /** This server's question deadline, over the `elicit.ttl` default and a caller's MCPX_ELICIT_TTL_MS. */
  elicitTtl: ttlSchema.optional(),
  /**
   * Settings by tool name. An array is another client's list of allowed tools (GitHub Copilot's `"tools": ["*"]`):
   * tolerated and ignored, as other tools' keys are.
   */
  tools: z.preprocess((value) => (Array.isArray(value) ? undefined : value), z.record(z.string(), toolSettingsSchema).optional()),
};

export const stdioServerSchema = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: credentialMap.optional(),
  cwd: z.string().min(1).optional(),
  ...commonFields,
});

export const httpServerSchema = z.looseObject({
  type: z.enum(['http', 'streamable-http', 'streamableHttp']).optional(),
  url: z.url({ protocol: /^https?$/ }),
  headers: credentialMap.optional(),
  /** How mcpx gets a token (src/config/oauth-schema.ts); discovery and registration need no settings. Tokens never go here. */
  oauth: oauthSchema.optional(),
  ...commonFields,
});

export type StdioServerConfig = z.infer<typeof stdioServerSchema>;
export type HttpServerConfig = z.infer<typeof httpServerSchema>;
export type ServerConfig = StdioServerConfig | HttpServerConfig;

/** The whole file. */
export interface McpxConfig {
  mcpServers: Record<string, ServerConfig>;
  /** Entries of `mcpServers` that are OpenAPI or CLI adapters (`{"openapi": ...}`, `{"cli": ...}`), by name. */
  adapters?: Record<string, AdapterConfig>;
  /** Who is told when a question opens (src/config/notify-schema.ts, docs/notify.md). */
  notify?: NotifySink[];
  /** Where the daemon listens for paired devices each time it starts (src/config/web-schema.ts, docs/web.md). */
  web?: WebListenConfig;
  /**
   * The values the entries' `${VAR}` references expanded to, each with its reference: what messages and records
   * show instead of the value (src/secrets/redact.ts). Filled by parseConfig; a Map, so it never goes out as JSON.
   */
  secretForms?: ReadonlyMap<string, string>;
}

export function isHttpServer(server: ServerConfig): server is HttpServerConfig {
  return typeof (server as HttpServerConfig).url === 'string';
}

/** Server names become parts of commands (`mcpx call github.create_issue`): no dots or spaces. */
export const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

/** What each field expects, in words, for error messages. */
export const EXPECTED: Record<string, string> = {
  command: 'a non-empty string: the program to run (e.g. "npx")',
  args: 'an array of strings: the program arguments',
  env: 'an object of environment variables for the server process: each a string, or {"ask": "<what to ask for>", "secret": true} to be asked at first use',
  cwd: 'a non-empty string: the directory to start the server in',
  url: 'an http(s) URL: the Streamable HTTP endpoint (e.g. "https://example.com/mcp")',
  headers:
    'an object of HTTP headers sent with every request: each a string, or {"ask": "<what to ask for>", "secret": true} to be asked at first use',
  oauth:
    'an object: optional grant ("authorization_code", "client_credentials", "jwt-bearer" or "enterprise"), clientId, clientSecret, clientMetadataUrl (https), scope, privateKey, algorithm, assertion, idp, issuer, dpop (see docs/auth.md)',
  era: '"auto" (probe once, cache the verdict), "legacy" or "modern"',
  timeoutMs: 'a positive integer: milliseconds per request while the server works',
  elicitTtl: 'a positive number of milliseconds, or a duration like "120s", "5m", "1h": how long its questions wait',
  tools: 'an object of settings by tool name, e.g. {"create_issue": {"elicitTtl": "2h"}}',
  'tools.<tool>': 'an object of the tool\'s settings: {"elicitTtl": "2h"} (its questions\' deadline, over the server\'s)',
  type: '"stdio" with a command, or "http" with a url (SSE-only servers are not supported)',
};

/** Every field a server entry may have, for naming a mistyped one. */
export const SERVER_FIELDS: readonly string[] = [
  ...new Set([...Object.keys(stdioServerSchema.shape), ...Object.keys(httpServerSchema.shape)]),
];
