/**
 * OAuth credentials in the real file secret store: kept per server and issuer, never offered to another issuer,
 * a client registered for another loopback address is registered again, and logout forgets them.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpxOAuthProvider, secondsLeft, serverCredentials } from '../../src/auth/index.js';
import { openSecretStore } from '../../src/secrets/index.js';

async function fileStore(): Promise<{ dir: string; store: Awaited<ReturnType<typeof openSecretStore>> }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-auth-store-'));
  return { dir, store: await openSecretStore({ stateDir: dir, prefer: 'file' }) };
}

const back = (redirectUrl: string) => ({ redirectUrl, expect: () => new Promise<URLSearchParams>(() => undefined) });
const neverShown = async (): Promise<void> => {
  throw new Error('no sign-in expected');
};

describe('OAuth credentials', () => {
  it('keys tokens and clients by issuer; the transport read gets the issuer saved last', async () => {
    const { store } = await fileStore();
    const provider = new McpxOAuthProvider(
      'notes',
      serverCredentials(store, 'notes'),
      {},
      back('http://127.0.0.1:5000/oauth/callback'),
      neverShown,
    );
    await provider.saveClientInformation(
      { client_id: 'as1-client', redirect_uris: ['http://127.0.0.1:5000/oauth/callback'] } as never,
      { issuer: 'https://as1.example' },
    );
    await provider.saveTokens({ access_token: 'at-1', token_type: 'Bearer' }, { issuer: 'https://as1.example' });
    expect((await provider.tokens())?.access_token).toBe('at-1');
    expect((await provider.clientInformation({ issuer: 'https://as1.example' }))?.client_id).toBe('as1-client');
    // Another authorization server: nothing of the first one is offered to it.
    expect(await provider.clientInformation({ issuer: 'https://as2.example' })).toBeUndefined();
    expect(await provider.tokens({ issuer: 'https://as2.example' })).toBeUndefined();
    await provider.saveTokens({ access_token: 'at-2', token_type: 'Bearer', expires_in: 60 }, { issuer: 'https://as2.example' });
    expect((await provider.tokens())?.access_token).toBe('at-2');
    const kept = await serverCredentials(store, 'notes').tokens('https://as2.example');
    expect(secondsLeft(kept!)).toBeGreaterThan(0);
    // Another server's credentials are its own.
    expect(await serverCredentials(store, 'other').currentIssuer()).toBeUndefined();
  });

  it('registers again when the stored client cannot receive this loopback redirect', async () => {
    const { store } = await fileStore();
    const credentials = serverCredentials(store, 'notes');
    await credentials.saveClient('https://as.example', {
      client_id: 'old',
      redirect_uris: ['http://127.0.0.1:5000/oauth/callback'],
    } as never);
    const elsewhere = new McpxOAuthProvider('notes', credentials, {}, back('http://127.0.0.1:6000/oauth/callback'), neverShown);
    expect(await elsewhere.clientInformation({ issuer: 'https://as.example' })).toBeUndefined();
    const preRegistered = new McpxOAuthProvider(
      'notes',
      credentials,
      { clientId: 'given', clientSecret: 's3' },
      back('http://127.0.0.1:6000/oauth/callback'),
      neverShown,
    );
    expect(await preRegistered.clientInformation({ issuer: 'https://as.example' })).toEqual({
      client_id: 'given',
      client_secret: 's3',
    });
  });

  it('exchanges with the client it registered when another process stored its own meanwhile, and keeps it with the tokens', async () => {
    const { store } = await fileStore();
    const issuer = { issuer: 'https://as.example' };
    // The daemon registers for its loopback port and starts its sign-in.
    const daemon = new McpxOAuthProvider(
      'notes',
      serverCredentials(store, 'notes'),
      {},
      back('http://127.0.0.1:5000/oauth/callback'),
      neverShown,
    );
    await daemon.saveClientInformation(
      { client_id: 'daemon', redirect_uris: ['http://127.0.0.1:5000/oauth/callback'] } as never,
      issuer,
    );
    // A headless mcpx run (another process, another port) registers its own before handing its sign-in over.
    await serverCredentials(store, 'notes').saveClient(issuer.issuer, {
      client_id: 'run',
      redirect_uris: ['http://127.0.0.1:6000/oauth/callback'],
    } as never);
    // The browser comes back to the daemon: its code was issued to its own client.
    expect((await daemon.clientInformation(issuer))?.client_id).toBe('daemon');
    await daemon.saveTokens({ access_token: 'at', token_type: 'Bearer', refresh_token: 'rt' }, issuer);
    expect((await serverCredentials(store, 'notes').client(issuer.issuer))?.client_id).toBe('daemon');
  });

  it('forgets tokens on logout and keeps the access token out of everything but the secrets file', async () => {
    const { dir, store } = await fileStore();
    const credentials = serverCredentials(store, 'notes');
    await credentials.saveTokens('https://as.example', { access_token: 'secret-access-token', token_type: 'Bearer' });
    const holding = readdirSync(dir).filter((name) => readFileSync(join(dir, name), 'utf8').includes('secret-access-token'));
    expect(holding.length).toBeLessThanOrEqual(1);
    expect(await credentials.forget('tokens')).toBe(true);
    expect(await credentials.tokens('https://as.example')).toBeUndefined();
    expect(await credentials.currentIssuer()).toBeUndefined();
    expect(await credentials.forget('tokens')).toBe(false);
    for (const name of readdirSync(dir)) expect(readFileSync(join(dir, name), 'utf8')).not.toContain('secret-access-token');
  });
});
