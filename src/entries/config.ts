/**
 * `mcpx/config`: the `mcpServers` file format and where it is found, and the connection settings a host may
 * supply to `createMcpx` (era caches, servers it wires itself).
 */
export { loadConfig, parseConfig } from '../config/index.js';
export type { EraSetting, HttpServerConfig, LoadedConfig, McpxConfig, ServerConfig, StdioServerConfig } from '../config/index.js';
export { createFileEraCache, createMemoryEraCache } from '../client/index.js';
export type { EraCache, EraVerdict, ServerConnector } from '../client/index.js';
