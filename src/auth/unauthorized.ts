/**
 * A server's 401 is met under the server's cross-process refresh lock. The SDK answers a 401 by running `auth()`
 * (a refresh with the refresh token, a machine grant's token request, or the start of a sign-in); with many
 * processes meeting the same 401 each would do it, and a rotating refresh token works once, so the others' refresh
 * fails and asks the person to sign in. Here whoever gets the lock first does it; the rest find the new token in the
 * secret store and send the request again with it, asking the authorization server nothing.
 */
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { withFileLock } from '../local/file-lock.js';

/** The transport's view of its provider, as the SDK adapts an `OAuthClientProvider`. */
interface AdaptedProvider {
  token(): Promise<string | undefined>;
  onUnauthorized?(ctx: unknown): Promise<void>;
}

export interface KeptAccessToken {
  /** The access token in the secret store now. */
  stored(): Promise<string | undefined>;
  /** Drops what the provider keeps in memory, so the next request reads the secret store. */
  forget?(): void;
}

/** Makes `transport`'s answer to a 401 run under the lock at `lockPath`, and only when nobody stored a new token. */
export function lockUnauthorized(transport: StreamableHTTPClientTransport, lockPath: string, kept: KeptAccessToken): void {
  const adapted = (transport as unknown as { _authProvider?: AdaptedProvider })._authProvider;
  const { token, onUnauthorized } = adapted ?? {};
  if (!adapted || !token || !onUnauthorized)
    throw new Error('the MCP SDK transport no longer exposes its adapted auth provider; src/auth/unauthorized.ts needs updating');
  // The token the last request went out with: a 401 refused that one.
  let sent: string | undefined;
  adapted.token = async () => (sent = await token.call(adapted));
  adapted.onUnauthorized = (ctx) =>
    withFileLock(lockPath, async () => {
      const now = await kept.stored();
      if (now !== undefined && now !== sent) {
        // Someone refreshed (or signed in) while this request was out: send it again with their token.
        kept.forget?.();
        return;
      }
      await onUnauthorized.call(adapted, ctx);
    });
}
