/**
 * What a Streamable HTTP transport authenticates with: the SDK's public `AuthProvider`, reading the OAuth provider's
 * token and answering a 401 with `auth()` as the SDK's own adapter of an `OAuthClientProvider` does, but under the
 * server's cross-process refresh lock. With many processes meeting the same 401 each would refresh, and a rotating
 * refresh token works once, so the others' refresh fails and asks the person to sign in. Here whoever gets the lock
 * first does it; the rest find the new token in the secret store and send the request again with it, asking the
 * authorization server nothing.
 */
import {
  auth,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  UnauthorizedError,
  type AuthProvider,
  type FetchLike,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { withFileLock } from '../local/file-lock.js';

export interface KeptAccessToken {
  /** The access token in the secret store now. */
  stored(): Promise<string | undefined>;
  /** Drops what the provider keeps in memory, so the next request reads the secret store. */
  forget?(): void;
}

/** What the server's 401 challenges said: where its resource metadata is, and every scope they named. */
export interface Challenged {
  resourceMetadataUrl?: URL | undefined;
  scope?: string | undefined;
}

export interface LockedAuthProvider extends AuthProvider {
  readonly challenged: Challenged;
}

/**
 * The transport's `AuthProvider` over `provider`; `fetchFn` is what `auth()` reaches the authorization server with.
 * With `lock`, a 401's answer runs under the lock at `lock.path`, and only when nobody stored a new token.
 */
export function lockedAuthProvider(
  provider: OAuthClientProvider,
  fetchFn: FetchLike,
  lock?: { path: string; kept: KeptAccessToken },
): LockedAuthProvider {
  // The token the last request went out with: a 401 refused that one.
  let sent: string | undefined;
  const challenged: Challenged = {};
  const authorize = async (response: Response, serverUrl: URL): Promise<void> => {
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    const challenge = { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
    if ((await auth(provider, { serverUrl, ...challenge, fetchFn })) !== 'AUTHORIZED') throw new UnauthorizedError();
  };
  return {
    challenged,
    token: async () => (sent = (await provider.tokens())?.access_token),
    onUnauthorized: async ({ response, serverUrl }) => {
      if (response.headers.has('www-authenticate')) {
        const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
        challenged.resourceMetadataUrl = resourceMetadataUrl;
        challenged.scope = computeScopeUnion(challenged.scope, scope);
      }
      if (!lock) return authorize(response, serverUrl);
      return withFileLock(lock.path, async () => {
        const now = await lock.kept.stored();
        if (now !== undefined && now !== sent) {
          // Someone refreshed (or signed in) while this request was out: send it again with their token.
          lock.kept.forget?.();
          return;
        }
        await authorize(response, serverUrl);
      });
    },
  };
}
