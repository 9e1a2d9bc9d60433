/**
 * Client: upstream MCP connections in both eras, and the one elicitation seam.
 * Knows no broker and no surface: it calls the host's ElicitHandler and returns values.
 */
export { createClientPool } from './pool/pool.js';
export type { ClientPool, ClientPoolOptions } from './pool/pool.js';
export { openConnection, MODERN_VERSION } from './connection.js';
export type { Connection, ConnectionOptions, ServerConnector } from './connection.js';
export { createFileEraCache, createMemoryEraCache, serverFingerprint } from './era-cache.js';
export type { EraCache, EraVerdict } from './era-cache.js';
export { parseContinuation } from './modern-call.js';
export { questionFromParams, questionsFromInputRequests, toWireResult } from './seam.js';
// The outcome of a call that may ask, and how to resume it: every type outcome.ts declares.
export type * from './outcome.js';
export type { AskingMethod } from './requests.js';
// For the host's other layers (the Node API, surfaces, auth): import the client only through here.
export type { ServerRequestForwarding } from './connection.js';
export { withCallChecks } from './checked-calls.js';
export { LEAVE_MCP_TASK } from './mcp-tasks/index.js';
export { issuesFromServerText } from './server-refusal.js';
export { serverStatus } from './server-status.js';
export type { ServerStatus } from './server-status.js';
export { startEarly, stopEarly, stdioSpawnOf } from './prespawn.js';
