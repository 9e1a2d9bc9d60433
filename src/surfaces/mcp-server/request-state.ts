/**
 * mcpx's own request state (2026-07-28 MRTR): HMAC-signed by the SDK's codec, bound to the method, with an expiry.
 * It names the held call and its questions, or (a relayed round) carries the upstream's own state inside mcpx's
 * envelope. A tampered, expired or foreign state is refused before any handler runs (-32602).
 */
import { randomBytes } from 'node:crypto';
import type Keyv from 'keyv';
import { createRequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { McpxError } from '../../errors.js';

export interface RequestStateSeal {
  mint(payload: unknown, ctx: ServerContext): Promise<string>;
  /** A relayed round's state: it lives exactly as long as a question may wait (nothing else holds the call). */
  mintRelay(payload: unknown, ctx: ServerContext): Promise<string>;
  verify(state: string, ctx: ServerContext): Promise<unknown>;
}

const KEY_RECORD = 'serve:request-state-key';

/**
 * The key: MCPX_SERVE_STATE_KEY (at least 32 bytes), else one kept in the state store, made by the first
 * `mcpx serve` that needs it: every serve process on the same store signs alike, so a retry may reach any of them.
 */
export async function requestStateKey(env: Record<string, string | undefined>, keyv: Keyv): Promise<string> {
  const configured = env.MCPX_SERVE_STATE_KEY;
  if (configured !== undefined) {
    if (Buffer.byteLength(configured) < 32)
      throw new McpxError('CONFIG_INVALID', 'MCPX_SERVE_STATE_KEY must be at least 32 bytes long');
    return configured;
  }
  const kept = (await keyv.get(KEY_RECORD)) as string | undefined;
  if (typeof kept === 'string' && kept.length >= 32) return kept;
  await keyv.set(KEY_RECORD, randomBytes(32).toString('base64url'));
  // Two processes starting at once: both read back whichever write landed last.
  return (await keyv.get(KEY_RECORD)) as string;
}

/** A state lives as long as its questions may wait, and a minute more (the retry may be on its way). */
export function createRequestStateSeal(key: string, ttlMs: number): RequestStateSeal {
  const bind = (ctx: ServerContext): string => ctx.mcpReq.method;
  const codec = createRequestStateCodec({ key, ttlSeconds: Math.ceil(ttlMs / 1000) + 60, bind });
  // The expiry travels inside the signed state, so one verify serves both.
  const relay = createRequestStateCodec({ key, ttlSeconds: Math.ceil(ttlMs / 1000), bind });
  return {
    mint: (payload, ctx) => codec.mint(payload, ctx),
    mintRelay: (payload, ctx) => relay.mint(payload, ctx),
    verify: (state, ctx) => codec.verify(state, ctx),
  };
}
