/**
 * mcpx's own request state (2026-07-28 MRTR): HMAC-signed by the SDK's codec, bound to the method, with an expiry.
 * It names the held call and its questions, or (a relayed round) carries the upstream's own state inside mcpx's
 * envelope. A tampered, expired or foreign state is refused before any handler runs (-32602).
 */
import { randomBytes } from 'node:crypto';
import type Keyv from 'keyv';
import { createRequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';

type RequestStateCodec = ReturnType<typeof createRequestStateCodec>;
import { McpxError } from '../../errors.js';

export interface RequestStateSeal {
  mint(payload: unknown, ctx: ServerContext): Promise<string>;
  /** A relayed round's state: it lives exactly as long as a question may wait (nothing else holds the call). */
  mintRelay(payload: unknown, ctx: ServerContext): Promise<string>;
  verify(state: string, ctx: ServerContext): Promise<unknown>;
}

const KEY_RECORD = 'serve:request-state-key';

/** What request states are signed with, as every serve on the store sees it. */
export interface RequestStateKey {
  /** The key in use, read at first use (after every serve started together has written): they agree on the last write. */
  current(): Promise<string>;
  /** Reads the stored key again; true when it changed (another serve's first write landed after this one read). */
  reread(): Promise<boolean>;
}

const validKey = (value: unknown): value is string => typeof value === 'string' && value.length >= 32;

/**
 * The key: MCPX_SERVE_STATE_KEY (at least 32 bytes), else one kept in the state store, made by the first
 * `mcpx serve` that needs it: every serve process on the same store signs alike, so a retry may reach any of them.
 * The store has no put-if-absent here, so serves starting at once may both write: the last write is the key, and a
 * state that fails to verify makes this process read the key again before it is refused.
 */
export async function requestStateKey(env: Record<string, string | undefined>, keyv: Keyv): Promise<RequestStateKey> {
  const configured = env.MCPX_SERVE_STATE_KEY;
  if (configured !== undefined) {
    if (Buffer.byteLength(configured) < 32)
      throw new McpxError('CONFIG_INVALID', 'MCPX_SERVE_STATE_KEY must be at least 32 bytes long');
    return { current: async () => configured, reread: async () => false };
  }
  if (!validKey(await keyv.get(KEY_RECORD))) await keyv.set(KEY_RECORD, randomBytes(32).toString('base64url'));
  let inUse: Promise<string> | undefined;
  const current = (): Promise<string> => (inUse ??= keyv.get(KEY_RECORD).then((kept) => kept as string));
  return {
    current,
    async reread() {
      const before = await current();
      const kept: unknown = await keyv.get(KEY_RECORD);
      if (!validKey(kept) || kept === before) return false;
      inUse = Promise.resolve(kept);
      return true;
    },
  };
}

/** A state lives as long as its questions may wait, and a minute more (the retry may be on its way). */
export function createRequestStateSeal(key: RequestStateKey, ttlMs: number): RequestStateSeal {
  const bind = (ctx: ServerContext): string => ctx.mcpReq.method;
  const codecs = new Map<string, { codec: RequestStateCodec; relay: RequestStateCodec }>();
  const codecsOf = async () => {
    const current = await key.current();
    let made = codecs.get(current);
    if (!made) {
      made = {
        codec: createRequestStateCodec({ key: current, ttlSeconds: Math.ceil(ttlMs / 1000) + 60, bind }),
        // The expiry travels inside the signed state, so one verify serves both.
        relay: createRequestStateCodec({ key: current, ttlSeconds: Math.ceil(ttlMs / 1000), bind }),
      };
      codecs.set(current, made);
    }
    return made;
  };
  return {
    mint: async (payload, ctx) => (await codecsOf()).codec.mint(payload, ctx),
    mintRelay: async (payload, ctx) => (await codecsOf()).relay.mint(payload, ctx),
    async verify(state, ctx) {
      try {
        return await (await codecsOf()).codec.verify(state, ctx);
      } catch (error) {
        if (!(await key.reread())) throw error;
        return (await codecsOf()).codec.verify(state, ctx);
      }
    },
  };
}
