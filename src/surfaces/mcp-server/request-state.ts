/**
 * mcpx's own request state (2026-07-28 MRTR): HMAC-signed, bound to the method, with an expiry; the SDK codec's
 * wire format (createRequestStateCodec), signed synchronously with node:crypto instead of two Web Crypto jobs per
 * mint and per verify, which cost a thread-pool round trip each on the question's path.
 * It names the held call and its questions, or (a relayed round) carries the upstream's own state inside mcpx's
 * envelope. A tampered, expired or foreign state is refused before any handler runs (-32602).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type Keyv from 'keyv';
import { McpxError } from '../../errors.js';

/** `method`: the request's method, which a state is bound to (one minted for tools/call is refused on prompts/get). */
export interface RequestStateSeal {
  mint(payload: unknown, method: string): Promise<string>;
  /** A relayed round's state: it lives exactly as long as a question may wait (nothing else holds the call). */
  mintRelay(payload: unknown, method: string): Promise<string>;
  verify(state: string, method: string): Promise<unknown>;
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

interface RequestStateCodec {
  mint(payload: unknown, method: string): string;
  verify(state: string, method: string): unknown;
}

const PREFIX = 'v1.';
const BIND_LABEL = 'mcp.requestState.bind:';

/** HMAC-SHA256 over `v1.<body>`, the body base64url JSON `{ p, exp, b }` (b: the method's 16-byte bind tag). */
function createCodec(key: string, ttlSeconds: number): RequestStateCodec {
  const keyBytes = Buffer.from(key, 'utf8');
  const mac = (text: string): Buffer => createHmac('sha256', keyBytes).update(text, 'utf8').digest();
  const tags = new Map<string, string>();
  const bindTag = (method: string): string => {
    let tag = tags.get(method);
    if (tag === undefined)
      tags.set(
        method,
        (tag = mac(BIND_LABEL + method)
          .subarray(0, 16)
          .toString('base64url')),
      );
    return tag;
  };
  const same = (a: string, b: string): boolean => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
  return {
    mint(payload, method) {
      const envelope = { p: payload, exp: Math.floor(Date.now() / 1000) + ttlSeconds, b: bindTag(method) };
      const body = Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64url');
      return `${PREFIX}${body}.${mac(PREFIX + body).toString('base64url')}`;
    },
    verify(state, method) {
      const dot = state.lastIndexOf('.');
      if (!state.startsWith(PREFIX) || dot <= PREFIX.length) throw new Error('malformed');
      const body = state.slice(PREFIX.length, dot);
      // The signature as minted, character for character: no other spelling of the same bytes passes.
      if (!same(state.slice(dot + 1), mac(PREFIX + body).toString('base64url'))) throw new Error('mac');
      let envelope: { p?: unknown; exp?: unknown; b?: unknown };
      try {
        envelope = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof envelope;
      } catch {
        throw new Error('malformed');
      }
      if (typeof envelope.exp !== 'number' || envelope.exp < Math.floor(Date.now() / 1000)) throw new Error('expired');
      if (typeof envelope.b !== 'string' || !same(envelope.b, bindTag(method))) throw new Error('bind');
      return envelope.p;
    },
  };
}

/** A state lives as long as its questions may wait, and a minute more (the retry may be on its way). */
export function createRequestStateSeal(key: RequestStateKey, ttlMs: number): RequestStateSeal {
  const codecs = new Map<string, { codec: RequestStateCodec; relay: RequestStateCodec }>();
  const codecsOf = async () => {
    const current = await key.current();
    let made = codecs.get(current);
    if (!made) {
      made = {
        codec: createCodec(current, Math.ceil(ttlMs / 1000) + 60),
        // The expiry travels inside the signed state, so one verify serves both.
        relay: createCodec(current, Math.ceil(ttlMs / 1000)),
      };
      codecs.set(current, made);
    }
    return made;
  };
  return {
    mint: async (payload, method) => (await codecsOf()).codec.mint(payload, method),
    mintRelay: async (payload, method) => (await codecsOf()).relay.mint(payload, method),
    async verify(state, method) {
      try {
        return (await codecsOf()).codec.verify(state, method);
      } catch (error) {
        if (!(await key.reread())) throw error;
        return (await codecsOf()).codec.verify(state, method);
      }
    },
  };
}
