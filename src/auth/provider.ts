/**
 * mcpx's `OAuthClientProvider` for one Streamable HTTP server. The SDK's `auth()` does discovery (RFC 9728,
 * RFC 8414 / OIDC with the issuer check), registration in the spec's order (pre-registered, client-id metadata
 * document, dynamic registration), PKCE, the `resource` parameter, scope selection and step-up, refresh and the
 * RFC 9207 `iss` check; this class keeps what it learns, keyed by issuer, in the secret store, and hands the
 * authorization URL to whoever asks the person (a question, never a silent browser launch).
 */
import { randomBytes } from 'node:crypto';
import {
  auth,
  type DpopSession,
  type FetchLike,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { openDpopSession } from './dpop-key.js';
import { needsRefresh, refreshedTokens } from './refresh.js';
import type { KeptTokens, ServerCredentials } from './token-store.js';

/** What a server's config may say about its OAuth client (all optional: discovery and registration do the rest). */
export interface OAuthSettings {
  /** A client registered with the authorization server out of band. */
  clientId?: string;
  clientSecret?: string;
  /** An https URL of this client's metadata document (CIMD), used when the authorization server supports it. */
  clientMetadataUrl?: string;
  /** Scopes to ask for when neither the server's challenge nor its metadata names any. */
  scope?: string;
  /** DPoP-bound tokens: unset, when the authorization server offers them; false never; true always. */
  dpop?: boolean;
}

/** Where the browser comes back to, and a way to wait for it. */
export interface AuthorizationReturn {
  readonly redirectUrl: string;
  /** The callback's query parameters for this `state` once the browser arrives. */
  expect(state: string): Promise<URLSearchParams>;
}

/** Shows the person the authorization URL (a url-mode question); rejects when they decline or nobody can answer. */
export type PresentSignIn = (request: { server: string; url: URL }) => Promise<void>;

/** How long after the person agreed to sign in the browser may take to come back. */
export const SIGN_IN_RETURN_MS = 10 * 60_000;

/** What refreshing ahead of expiry needs: the MCP server's URL (for discovery) and the server's refresh lock. */
export interface RefreshSettings {
  serverUrl: URL;
  lockPath: string;
  fetch?: FetchLike;
}

export class McpxOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  private verifier: string | undefined;
  /**
   * The client this provider registered (for its own redirect): its sign-in in flight exchanges the code with it
   * even if another process (a second `mcpx run`, registering for its own port) stored another meanwhile.
   */
  private ownClient: { issuer: string; client: StoredOAuthClientInformation } | undefined;
  /** The client last handed to the SDK: the one its next token request uses, so the tokens are stored with it. */
  private usedClient: { issuer: string; client: StoredOAuthClientInformation } | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private pending: URL | undefined;
  private refreshing: Promise<KeptTokens | undefined> | undefined;
  /**
   * The tokens every request sends, kept in memory instead of read from the secret store per request. Dropped
   * whenever they may have changed: a save, an invalidation, the SDK's own read (it reads only in an auth flow,
   * after a 401) and a refresh ahead of expiry, which reads the store under the refresh lock.
   */
  private forRequests: { tokens: KeptTokens | undefined } | undefined;
  private dpopSession: Promise<DpopSession> | undefined;
  /** The stored tokens' `token_type` as last read or saved (`undefined`: not read yet). */
  private tokenType: string | null | undefined;

  constructor(
    private readonly server: string,
    private readonly credentials: ServerCredentials,
    private readonly settings: OAuthSettings,
    private readonly back: AuthorizationReturn,
    private readonly present: PresentSignIn,
    private readonly refresh?: RefreshSettings,
  ) {
    if (settings.clientMetadataUrl) this.clientMetadataUrl = settings.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.back.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcpx',
      redirect_uris: [this.back.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A CLI keeps no secret it could protect: a public client with PKCE.
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      ...(this.settings.scope ? { scope: this.settings.scope } : {}),
    };
  }

  state(): string {
    return randomBytes(24).toString('base64url');
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    if (this.settings.clientId) {
      return {
        client_id: this.settings.clientId,
        ...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}),
      };
    }
    const issuer = ctx?.issuer ?? (await this.credentials.currentIssuer());
    if (!issuer) return undefined;
    const client = await this.credentials.client(issuer);
    const own = this.ownClient?.issuer === issuer ? this.ownClient.client : undefined;
    // A client registered for another loopback address cannot receive this sign-in: register again (or use ours);
    // but its refresh token is bound to it, so while there is one to try it is kept (a failed refresh forgets them).
    let chosen = client;
    if (client && !(await this.credentials.tokens(issuer))?.refresh_token && !this.redirectsHere(client))
      chosen = own && this.redirectsHere(own) ? own : undefined;
    this.usedClient = chosen && { issuer, client: chosen };
    return chosen;
  }

  private redirectsHere(client: StoredOAuthClientInformation): boolean {
    return (
      !('redirect_uris' in client) || !Array.isArray(client.redirect_uris) || client.redirect_uris.includes(this.back.redirectUrl)
    );
  }

  async saveClientInformation(client: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = ctx?.issuer ?? client.issuer;
    if (!issuer) return;
    this.ownClient = this.usedClient = { issuer, client };
    await this.credentials.saveClient(issuer, client);
  }

  /**
   * The stored tokens. Read for a request (no `ctx`) when the access token has expired or is about to, they are
   * refreshed first, once for all callers in every process (see refresh.ts); the SDK's own reads (with `ctx`) get
   * them as stored.
   */
  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    if (ctx) this.forgetRequestTokens();
    const kept = this.forRequests;
    if (!ctx && kept && !(kept.tokens && this.refresh && needsRefresh(kept.tokens))) return kept.tokens;
    const issuer = ctx?.issuer ?? (await this.credentials.currentIssuer());
    if (!issuer) return ctx ? undefined : this.keepForRequests(undefined);
    const stored = await this.credentials.tokens(issuer);
    this.tokenType = stored?.token_type ?? null;
    if (ctx) return stored;
    if (!stored || !this.refresh || !needsRefresh(stored)) return this.keepForRequests(stored);
    return (this.refreshing ??= this.refreshAhead(issuer, this.refresh)
      .then((tokens) => this.keepForRequests(tokens))
      .finally(() => (this.refreshing = undefined)));
  }

  /** The access token in the secret store now (no refresh, nothing kept). */
  async storedAccessToken(): Promise<string | undefined> {
    const issuer = await this.credentials.currentIssuer();
    return issuer ? (await this.credentials.tokens(issuer))?.access_token : undefined;
  }

  /** The server refused the request's token, or it changed: the next request reads the secret store again. */
  forgetRequestTokens(): void {
    this.forRequests = undefined;
  }

  private keepForRequests(tokens: KeptTokens | undefined): KeptTokens | undefined {
    this.forRequests = { tokens };
    return tokens;
  }

  private refreshAhead(issuer: string, settings: RefreshSettings): Promise<KeptTokens | undefined> {
    return refreshedTokens({
      lockPath: settings.lockPath,
      read: () => this.credentials.tokens(issuer),
      refresh: async () => {
        await auth(this, { serverUrl: settings.serverUrl, ...(settings.fetch ? { fetchFn: settings.fetch } : {}) });
      },
    });
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = ctx?.issuer ?? tokens.issuer;
    this.forgetRequestTokens();
    this.tokenType = tokens.token_type;
    if (!issuer) return;
    await this.credentials.saveTokens(issuer, tokens);
    // Tokens are bound to the client that got them (its refresh token above all): stored together.
    const own = this.ownClient?.issuer === issuer ? this.ownClient.client : undefined;
    if (own && (await this.credentials.client(issuer))?.client_id !== own.client_id)
      await this.credentials.saveClient(issuer, own);
  }

  /**
   * DPoP (RFC 9449): the SDK signs a proof into each token request and presents a DPoP-bound token with a fresh
   * proof per request when this returns a session. Used when the config says `dpop: true`, or unless it says false,
   * when the authorization server offers DPoP (`dpop_signing_alg_values_supported`) or the stored token is bound.
   */
  async dpop(): Promise<DpopSession | undefined> {
    if (this.settings.dpop === false) return undefined;
    if (this.dpopSession) return this.dpopSession;
    if (this.tokenType === undefined) {
      const issuer = await this.credentials.currentIssuer();
      this.tokenType = (issuer ? (await this.credentials.tokens(issuer))?.token_type : undefined) ?? null;
    }
    const metadata = this.discovery?.authorizationServerMetadata as Record<string, unknown> | undefined;
    const offered = metadata?.dpop_signing_alg_values_supported;
    const wanted =
      this.settings.dpop === true || (Array.isArray(offered) && offered.length > 0) || this.tokenType?.toLowerCase() === 'dpop';
    if (!wanted) return undefined;
    return (this.dpopSession ??= openDpopSession(this.credentials, this.refresh?.lockPath));
  }

  /** Only notes the URL: the transport decides whether this sign-in is the one to show (see SigningInTransport). */
  redirectToAuthorization(url: URL): void {
    this.pending = url;
  }

  /** The authorization URL the last redirect produced, once. */
  takeAuthorizationUrl(): URL | undefined {
    const url = this.pending;
    this.pending = undefined;
    return url;
  }

  /** Shows the URL to the person and waits for the browser to come back: the callback's parameters. */
  async signIn(url: URL): Promise<URLSearchParams> {
    const arrived = this.back.expect(url.searchParams.get('state') ?? '');
    await this.present({ server: this.server, url });
    // The person said yes; a browser that never comes back must not hold the connection open for ever.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(`the browser did not come back to ${this.back.redirectUrl} within ${SIGN_IN_RETURN_MS / 60_000} minutes`),
          ),
        SIGN_IN_RETURN_MS,
      );
      timer.unref();
    });
    return Promise.race([arrived, late]).finally(() => clearTimeout(timer));
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error(`no sign-in to ${this.server} is in progress (no PKCE verifier)`);
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    this.forgetRequestTokens();
    if (scope === 'verifier') this.verifier = undefined;
    if (scope === 'discovery' || scope === 'all') this.discovery = undefined;
    if (scope === 'tokens') await this.credentials.forget('tokens');
    if (scope === 'client' || scope === 'all') {
      this.ownClient = this.usedClient = undefined;
      await this.credentials.forget('all');
    }
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
}
