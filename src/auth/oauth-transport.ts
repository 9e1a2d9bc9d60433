/**
 * Streamable HTTP over an OAuth provider on the SDK's public seams: the transport gets an `AuthProvider` of ours
 * (unauthorized.ts: a 401 answered under the refresh lock), DPoP through `withDpopFromProvider`, the SEP-2350
 * step-up on a `403 insufficient_scope` and `finishAuth` as the SDK's transport does them for an `OAuthClientProvider`.
 */
import {
  auth,
  computeScopeUnion,
  createFetchWithInit,
  InsufficientScopeError,
  isStrictScopeSuperset,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  withDpopFromProvider,
  type FetchLike,
  type JSONRPCMessage,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { lockedAuthProvider, type KeptAccessToken, type LockedAuthProvider } from './unauthorized.js';

export type OAuthTransportOptions = Omit<
  NonNullable<ConstructorParameters<typeof StreamableHTTPClientTransport>[1]>,
  'authProvider'
>;
type SendOptions = Parameters<StreamableHTTPClientTransport['send']>[1];

/** Step-ups per message before the 403 stands, as the SDK's transport allows. */
const MAX_STEP_UPS = 1;

export class OAuthTransport extends StreamableHTTPClientTransport {
  private readonly locked: LockedAuthProvider;
  /** What `auth()` reaches the authorization server with: the transport's fetch and request init, never DPoP's. */
  private readonly authFetch: FetchLike;

  constructor(
    private readonly serverUrl: URL,
    private readonly options: OAuthTransportOptions,
    private readonly oauth: OAuthClientProvider,
    /** The server's refresh lock: a 401's refresh (or sign-in start) runs under it. */
    lock?: { path: string; kept: KeptAccessToken },
  ) {
    const authFetch = createFetchWithInit(options.fetch, options.requestInit);
    const locked = lockedAuthProvider(oauth, authFetch, lock);
    super(serverUrl, {
      ...options,
      authProvider: locked,
      ...(oauth.dpop ? { fetch: withDpopFromProvider(oauth)(options.fetch ?? fetch) } : {}),
    });
    this.locked = locked;
    this.authFetch = authFetch;
  }

  override async send(message: JSONRPCMessage | JSONRPCMessage[], options?: SendOptions): Promise<void> {
    for (let stepUps = 0; ; stepUps++) {
      try {
        return await super.send(message as JSONRPCMessage, options);
      } catch (error) {
        if (!(error instanceof InsufficientScopeError) || stepUps >= MAX_STEP_UPS) throw error;
        // A sign-in is needed for the wider scope: the provider noted its URL, as for a 401.
        if ((await this.stepUp(error)) !== 'AUTHORIZED') throw new UnauthorizedError();
      }
    }
  }

  /** Authorization for the union of the scopes held and asked for; a fresh one when that is more than the token has. */
  private async stepUp(challenge: InsufficientScopeError): Promise<'AUTHORIZED' | 'REDIRECT'> {
    const { challenged } = this.locked;
    if (challenge.resourceMetadataUrl) challenged.resourceMetadataUrl = challenge.resourceMetadataUrl;
    const tokens = await this.oauth.tokens();
    challenged.scope = computeScopeUnion(challenged.scope, tokens?.scope, challenge.requiredScope);
    return auth(this.oauth, {
      serverUrl: this.serverUrl,
      ...(challenged.resourceMetadataUrl ? { resourceMetadataUrl: challenged.resourceMetadataUrl } : {}),
      ...(challenged.scope ? { scope: challenged.scope } : {}),
      forceReauthorization: isStrictScopeSuperset(challenged.scope, tokens?.scope),
      fetchFn: this.authFetch,
    });
  }

  /** The browser came back: the SDK's own `finishAuth` (the RFC 9207 `iss` check, the code exchange) on the provider. */
  override async finishAuth(codeOrParams: string | URLSearchParams, iss?: string): Promise<void> {
    const { fetch: base, requestInit } = this.options;
    const finishing = new StreamableHTTPClientTransport(this.serverUrl, {
      authProvider: this.oauth,
      ...(base ? { fetch: base } : {}),
      ...(requestInit ? { requestInit } : {}),
    });
    await (typeof codeOrParams === 'string' ? finishing.finishAuth(codeOrParams, iss) : finishing.finishAuth(codeOrParams));
  }
}
