/**
 * The fast paths: work the SDK (or our own schemas) would do anyway, done with less CPU on public API only, each
 * with a test that holds it to the slow path's answers. One switch turns them all off: `MCPX_FAST_PATHS=0` (CI runs
 * the client and serve tests that way too).
 */
export { createNodeFetch, type NodeFetch, type NodeFetchOptions } from './node-fetch.js';
export { isExactContinuation } from './continuation-shape.js';
// tool-call.ts (serve's, on @modelcontextprotocol/server) is imported by path, so the client never loads that package.

/** Whether the fast paths are on for this environment (they are, unless `MCPX_FAST_PATHS` is `0`, `off` or `false`). */
export function fastPathsOn(env: Record<string, string | undefined>): boolean {
  const setting = env.MCPX_FAST_PATHS?.trim().toLowerCase();
  return setting !== '0' && setting !== 'off' && setting !== 'false';
}
