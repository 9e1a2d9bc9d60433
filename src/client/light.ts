/**
 * The client's light door: what the CLI and the daemon's prewarm need before (or without) a connection, without
 * the SDK, zod or ajv that its index.ts loads. Only modules with no heavy imports belong here.
 */
export { startEarly, stdioSpawnOf } from './prespawn.js';
export { issuesFromServerText } from './server-refusal.js';
