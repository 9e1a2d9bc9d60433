/**
 * The DPoP key of one server (RFC 9449, SEP-1932). A DPoP-bound token works only with the key it was bound to, and
 * tokens are shared by every mcpx process on the machine (the daemon, `mcpx run`, Node API hosts), so the key is
 * kept beside the tokens in the secret store, never in a file mcpx writes in the clear or a log. Created once,
 * under a lock, so two processes signing in at the same moment do not bind tokens to two keys.
 */
import { DpopSession, generateDpopKeyPair, type DpopKeyPair } from '@modelcontextprotocol/client';
import { withFileLock } from '../local/file-lock.js';
import type { ServerCredentials } from './token-store.js';

/** How the key is kept: both halves as JWKs (ES256, P-256), and the thumbprint tokens are bound to (`cnf.jkt`). */
export interface KeptDpopKey {
  alg: 'ES256';
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
  thumbprint: string;
}

/** An EC key as a JWK, declared here: the package's types must not need @types/node in the user's project. */
interface JsonWebKey {
  kty?: string;
  crv?: string;
  x?: string;
  y?: string;
  d?: string;
  alg?: string;
  use?: string;
  ext?: boolean;
  key_ops?: string[];
}

const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

async function restore(kept: KeptDpopKey): Promise<DpopKeyPair> {
  return {
    privateKey: await crypto.subtle.importKey('jwk', kept.privateJwk, P256, false, ['sign']),
    publicKey: await crypto.subtle.importKey('jwk', kept.publicJwk, P256, true, ['verify']),
    publicJwk: kept.publicJwk as DpopKeyPair['publicJwk'],
    thumbprint: kept.thumbprint,
    alg: kept.alg,
  };
}

/** The server's DPoP session with its kept key, creating and keeping a key on first use. */
export async function openDpopSession(credentials: ServerCredentials, lockPath: string | undefined): Promise<DpopSession> {
  const load = async (): Promise<DpopKeyPair> => {
    const kept = await credentials.dpopKey();
    if (kept) return restore(kept);
    const pair = await generateDpopKeyPair({ alg: 'ES256', extractable: true });
    const privateJwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
    await credentials.saveDpopKey({
      alg: 'ES256',
      privateJwk,
      publicJwk: pair.publicJwk as JsonWebKey,
      thumbprint: pair.thumbprint,
    });
    return restore((await credentials.dpopKey())!);
  };
  const keyPair = lockPath ? await withFileLock(`${lockPath}.dpop`, load) : await load();
  return DpopSession.create({ keyPair });
}
