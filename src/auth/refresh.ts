/**
 * Refresh once for everyone. An access token that has expired (or is about to) is refreshed under the server's
 * cross-process lock; whoever waited on the lock finds the new token in the secret store and uses it, so however
 * many calls and processes need the token at once, one refresh request reaches the authorization server (a
 * rotated refresh token may be used only once: a second refresh would fail and ask the person to sign in again).
 */
import { join } from 'node:path';
import { withFileLock, type FileLockOptions } from '../local/file-lock.js';
import { secondsLeft, type KeptTokens } from './token-store.js';

/** Refresh this many seconds before expiry (or at half the token's life, if that is shorter). */
export const REFRESH_MARGIN_S = 30;

/** True when the tokens can be refreshed and the access token has expired or is about to. */
export function needsRefresh(tokens: KeptTokens, now: number = Date.now()): boolean {
  const left = secondsLeft(tokens, now);
  if (!tokens.refresh_token || left === undefined || tokens.expires_in === undefined) return false;
  return left <= Math.min(REFRESH_MARGIN_S, tokens.expires_in / 2);
}

/** The lock file of one server's refresh, in the state dir's `locks/`. */
export function refreshLockPath(lockDir: string, server: string): string {
  return join(lockDir, `oauth-${encodeURIComponent(server)}.lock`);
}

export interface RefreshOnce {
  lockPath: string;
  /** The tokens as stored now. */
  read(): Promise<KeptTokens | undefined>;
  /** Sends the refresh request and stores what comes back (the SDK's `auth()`). */
  refresh(): Promise<void>;
  lock?: FileLockOptions;
}

/**
 * The tokens to send: after waiting for whoever holds the lock, the stored ones if someone else refreshed
 * meanwhile, else the result of our own refresh. A refresh that fails leaves the tokens as they are: the server's
 * 401 then starts the usual path (a sign-in).
 */
export async function refreshedTokens(once: RefreshOnce): Promise<KeptTokens | undefined> {
  return withFileLock(
    once.lockPath,
    async () => {
      const stored = await once.read();
      if (!stored || !needsRefresh(stored)) return stored;
      try {
        await once.refresh();
      } catch {
        return stored;
      }
      return once.read();
    },
    once.lock,
  );
}
