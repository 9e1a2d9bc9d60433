/**
 * mcpx as an MCP server (`mcpx serve`): the upstream servers' tools behind one connection, every question they
 * ask forwarded to the client or answerable through the mcpx_elicit_* tools, the CLI and REST. Owns the MCP
 * wire (stdio, Streamable HTTP); the core it stands on is the broker, the task runner and the client pool.
 * Must not import other surfaces.
 */
export { createServeCore, type ServeCore, type ServeCoreOptions } from './core.js';
export { serveOverStdio, type StdioServe } from './stdio.js';
export { serveOverHttp, isLoopback, type HttpServe, type HttpServeOptions } from './http.js';
export { RESERVED_NAMES } from './fallback-tools.js';
export { serveTokens, serveTokenFile, type ServeTokens } from './serve-token.js';
export type { ServeAuth } from './http-principals.js';
