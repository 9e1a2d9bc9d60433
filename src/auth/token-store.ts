/**
 * OAuth credentials of one server in the secret store (keychain or 0600 file), keyed by server and issuer:
 * a client registered with one authorization server, or its tokens, are never offered to another (RFC 6749 §2.2).
 * Nothing here is ever written to a config file, a log or an audit record.
 */
import type { StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import type { SecretStore } from '../secrets/index.js';
import type { KeptDpopKey } from './dpop-key.js';

/** The secret store's service for every OAuth entry of mcpx. */
export const OAUTH_SERVICE = 'oauth';

/** Tokens as kept: the SDK's tokens plus when they were saved, so expiry is known without asking the server. */
export type KeptTokens = StoredOAuthTokens & { saved_at?: number };

/** Which issuer a server's tokens came from last: the transport reads tokens without naming an issuer. */
interface CurrentIssuer {
  issuer: string;
}

export interface ServerCredentials {
  readonly server: string;
  currentIssuer(): Promise<string | undefined>;
  tokens(issuer: string): Promise<KeptTokens | undefined>;
  saveTokens(issuer: string, tokens: StoredOAuthTokens): Promise<void>;
  client(issuer: string): Promise<StoredOAuthClientInformation | undefined>;
  saveClient(issuer: string, client: StoredOAuthClientInformation): Promise<void>;
  /** The key DPoP-bound tokens of this server are bound to (one per server, whatever the issuer). */
  dpopKey(): Promise<KeptDpopKey | undefined>;
  saveDpopKey(key: KeptDpopKey): Promise<void>;
  /** Forgets tokens (or tokens and client) for every issuer this server used; true when something was there. */
  forget(what: 'tokens' | 'all'): Promise<boolean>;
}

export function serverCredentials(store: SecretStore, server: string, now: () => number = Date.now): ServerCredentials {
  const account = (issuer: string, kind: 'tokens' | 'client'): string => `${server} ${kind} ${issuer}`;
  const currentAccount = `${server} current`;
  const read = async <T>(acct: string): Promise<T | undefined> => {
    const raw = await store.get(OAUTH_SERVICE, acct);
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw) as T;
    } catch {
      return undefined;
    }
  };
  const issuersSeen = async (): Promise<string[]> => (await read<{ issuers: string[] }>(`${server} issuers`))?.issuers ?? [];
  const remember = async (issuer: string): Promise<void> => {
    const seen = await issuersSeen();
    if (!seen.includes(issuer))
      await store.set(OAUTH_SERVICE, `${server} issuers`, JSON.stringify({ issuers: [...seen, issuer] }));
  };
  return {
    server,
    currentIssuer: async () => (await read<CurrentIssuer>(currentAccount))?.issuer,
    tokens: (issuer) => read<KeptTokens>(account(issuer, 'tokens')),
    saveTokens: async (issuer, tokens) => {
      await remember(issuer);
      await store.set(OAUTH_SERVICE, account(issuer, 'tokens'), JSON.stringify({ ...tokens, saved_at: now() }));
      await store.set(OAUTH_SERVICE, currentAccount, JSON.stringify({ issuer } satisfies CurrentIssuer));
    },
    client: (issuer) => read<StoredOAuthClientInformation>(account(issuer, 'client')),
    saveClient: async (issuer, client) => {
      await remember(issuer);
      await store.set(OAUTH_SERVICE, account(issuer, 'client'), JSON.stringify(client));
    },
    dpopKey: () => read<KeptDpopKey>(`${server} dpop`),
    saveDpopKey: async (key) => {
      await store.set(OAUTH_SERVICE, `${server} dpop`, JSON.stringify(key));
    },
    forget: async (what) => {
      let removed = false;
      for (const issuer of await issuersSeen()) {
        removed = (await store.delete(OAUTH_SERVICE, account(issuer, 'tokens'))) || removed;
        if (what === 'all') removed = (await store.delete(OAUTH_SERVICE, account(issuer, 'client'))) || removed;
      }
      await store.delete(OAUTH_SERVICE, currentAccount);
      if (what === 'all') {
        await store.delete(OAUTH_SERVICE, `${server} issuers`);
        removed = (await store.delete(OAUTH_SERVICE, `${server} dpop`)) || removed;
      }
      return removed;
    },
  };
}

/** Seconds until the access token expires (negative: expired), when the server said how long it lives. */
export function secondsLeft(tokens: KeptTokens, now: number = Date.now()): number | undefined {
  if (tokens.expires_in === undefined || tokens.saved_at === undefined) return undefined;
  return Math.round(tokens.saved_at / 1000 + tokens.expires_in - now / 1000);
}
