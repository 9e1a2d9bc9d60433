/**
 * DPoP keys in the real file secret store: a token bound to a key is usable by every process on the machine, so the
 * key is kept and restored (same thumbprint, proofs that verify with the kept public key); a provider uses DPoP when
 * its stored token is DPoP-bound even before it has seen the authorization server's metadata, never when the config
 * says `dpop: false`, and logout forgets the key.
 */
import type { webcrypto } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpxOAuthProvider, serverCredentials } from '../../src/auth/index.js';
import { openDpopSession } from '../../src/auth/dpop-key.js';
import { openSecretStore } from '../../src/secrets/index.js';

const back = { redirectUrl: 'http://127.0.0.1:5000/oauth/callback', expect: () => new Promise<URLSearchParams>(() => undefined) };
const neverShown = async (): Promise<void> => {
  throw new Error('no sign-in expected');
};

type JsonWebKey = webcrypto.JsonWebKey;

async function verifies(proof: string, jwk: JsonWebKey): Promise<boolean> {
  const [header, payload, signature] = proof.split('.');
  const key = await crypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  return crypto.subtle.verify(
    { name: 'ECDSA', hash: 'SHA-256' },
    key,
    Buffer.from(signature!, 'base64url'),
    new TextEncoder().encode(`${header}.${payload}`),
  );
}

describe('DPoP keys', () => {
  it('keeps one key per server and restores it in another store handle (another process)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-dpop-'));
    const lockPath = join(dir, 'locks', 'oauth-notes.lock');
    const first = await openDpopSession(
      serverCredentials(await openSecretStore({ stateDir: dir, prefer: 'file' }), 'notes'),
      lockPath,
    );
    const other = serverCredentials(await openSecretStore({ stateDir: dir, prefer: 'file' }), 'notes');
    const second = await openDpopSession(other, lockPath);
    expect(second.thumbprint).toBe(first.thumbprint);
    const proof = await second.buildProof({ htm: 'POST', htu: 'https://notes.example/mcp', accessToken: 'at' });
    expect(await verifies(proof, first.publicJwk as JsonWebKey)).toBe(true);
    expect((await other.dpopKey())?.privateJwk.d).toBeTruthy();

    await other.forget('all');
    expect(await other.dpopKey()).toBeUndefined();
  });

  it('presents a stored DPoP-bound token with DPoP, and never when the config says dpop: false', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-dpop-'));
    const credentials = serverCredentials(await openSecretStore({ stateDir: dir, prefer: 'file' }), 'notes');
    await credentials.saveTokens('https://as.example', { access_token: 'at', token_type: 'DPoP' });
    const bound = new McpxOAuthProvider('notes', credentials, {}, back, neverShown);
    expect((await bound.dpop())?.thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const refused = new McpxOAuthProvider('notes', credentials, { dpop: false }, back, neverShown);
    expect(await refused.dpop()).toBeUndefined();

    await credentials.saveTokens('https://as.example', { access_token: 'at', token_type: 'Bearer' });
    const bearer = new McpxOAuthProvider('notes', credentials, {}, back, neverShown);
    expect(await bearer.dpop()).toBeUndefined();
  });
});
