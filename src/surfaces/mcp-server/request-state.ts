/**
 * mcpx's own request state (2026-07-28 MRTR): HMAC-signed by the SDK's codec, bound to the method, with an expiry.
 * It names the held call and its questions; the upstream's own state, if any, never leaves mcpx (the task keeps
 * it). A tampered, expired or foreign state is refused before any handler runs (-32602).
 */
import { randomBytes } from 'node:crypto';
import { createRequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { McpxError } from '../../errors.js';

export interface RequestStateSeal {
  mint(payload: unknown, ctx: ServerContext): Promise<string>;
  verify(state: string, ctx: ServerContext): Promise<unknown>;
}

/**
 * The key: MCPX_SERVE_STATE_KEY (at least 32 bytes; share it between instances behind one address), else random
 * per process, so a state outlives nothing but the process that holds its call (which is all a legacy call can).
 */
export function createRequestStateSeal(env: Record<string, string | undefined>, ttlMs: number): RequestStateSeal {
  const configured = env.MCPX_SERVE_STATE_KEY;
  if (configured !== undefined && Buffer.byteLength(configured) < 32) {
    throw new McpxError('CONFIG_INVALID', 'MCPX_SERVE_STATE_KEY must be at least 32 bytes long');
  }
  const codec = createRequestStateCodec({
    key: configured ?? randomBytes(32),
    // A question outlives its deadline by nothing; the state by a minute (the retry may be on its way).
    ttlSeconds: Math.ceil(ttlMs / 1000) + 60,
    bind: (ctx) => ctx.mcpReq.method,
  });
  return { mint: (payload, ctx) => codec.mint(payload, ctx), verify: (state, ctx) => codec.verify(state, ctx) };
}
