/**
 * OAuth with no person in the loop: the machine holds a credential and the SDK's `auth()` trades it for a token
 * when the server answers 401 (its non-interactive path: no redirect URL, `prepareTokenRequest`). The grants of the
 * SDK's ClientCredentialsProvider, PrivateKeyJwtProvider and CrossAppAccessProvider, with mcpx's storage (tokens in
 * the secret store, keyed by issuer) and secrets read at the moment of need.
 */
import {
  createPrivateKeyJwtAuth,
  discoverAndRequestJwtAuthGrant,
  requestJwtAuthorizationGrant,
  type AddClientAuthentication,
  type FetchLike,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { OAuthConfig } from '../config/oauth-schema.js';
import type { ServerCredentials } from './token-store.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Reads one secret of the `oauth` block (`clientSecret`, `privateKey`, `assertion`, `idp.idToken`...) when it is needed. */
export type SecretReader = (key: string) => Promise<string>;

/** A machine grant's settings: an `oauth` block whose `grant` is not the authorization-code flow. */
export type MachineGrantConfig = OAuthConfig & { grant: 'client_credentials' | 'jwt-bearer' | 'enterprise' };

export function isMachineGrant(oauth: OAuthConfig | undefined): oauth is MachineGrantConfig {
  return oauth?.grant !== undefined && oauth.grant !== 'authorization_code';
}

/**
 * Three grants:
 * - `client_credentials` (SEP-1046) with a client secret (HTTP Basic) or a private key (private_key_jwt, RFC 7523 §2.2);
 * - `jwt-bearer` (RFC 7523 §2.1; workload identity federation, SEP-1933): a workload JWT as the grant;
 * - `enterprise` (SEP-990): the person's ID token exchanged at the enterprise IdP for an ID-JAG (RFC 8693), which
 *   is the jwt-bearer grant at the MCP server's authorization server.
 */
export class MachineOAuthProvider implements OAuthClientProvider {
  readonly addClientAuthentication?: AddClientAuthentication;
  private authorizationServer: string | undefined;
  private resource: string | undefined;

  constructor(
    private readonly credentials: ServerCredentials,
    private readonly settings: MachineGrantConfig,
    private readonly secret: SecretReader,
    private readonly fetchFn?: FetchLike,
  ) {
    const { clientId, algorithm } = settings;
    if (settings.privateKey !== undefined && clientId && algorithm) {
      // The assertion is signed for each token request, with the key read at that moment (it may be rotated).
      this.addClientAuthentication = async (headers, params, url, metadata) =>
        createPrivateKeyJwtAuth({ issuer: clientId, subject: clientId, privateKey: await secret('privateKey'), alg: algorithm })(
          headers,
          params,
          url,
          metadata,
        );
    }
  }

  /** No redirect: the SDK's `auth()` takes its non-interactive path and asks `prepareTokenRequest` for the grant. */
  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { grant, scope } = this.settings;
    return {
      client_name: 'mcpx',
      redirect_uris: [],
      grant_types: [grant === 'client_credentials' ? 'client_credentials' : JWT_BEARER],
      token_endpoint_auth_method: this.authMethod(),
      ...(scope ? { scope } : {}),
    };
  }

  private authMethod(): string {
    if (this.settings.privateKey !== undefined) return 'private_key_jwt';
    return this.settings.clientSecret !== undefined ? 'client_secret_basic' : 'none';
  }

  /** The client the config names, bound to the configured issuer when there is one (sent to no other). */
  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const { clientId, clientSecret, issuer } = this.settings;
    if (!clientId) return undefined;
    return {
      client_id: clientId,
      ...(clientSecret !== undefined && this.settings.privateKey === undefined
        ? { client_secret: await this.secret('clientSecret') }
        : {}),
      ...(this.addClientAuthentication ? { token_endpoint_auth_method: 'private_key_jwt' } : {}),
      ...(issuer ? { issuer } : {}),
    };
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    const issuer = ctx?.issuer ?? (await this.credentials.currentIssuer());
    return issuer ? this.credentials.tokens(issuer) : undefined;
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    const issuer = ctx?.issuer ?? tokens.issuer;
    if (issuer) await this.credentials.saveTokens(issuer, tokens);
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const params =
      this.settings.grant === 'client_credentials'
        ? new URLSearchParams({ grant_type: 'client_credentials' })
        : new URLSearchParams({ grant_type: JWT_BEARER, assertion: await this.assertion(scope) });
    if (scope) params.set('scope', scope);
    return params;
  }

  /** The jwt-bearer grant: the workload's JWT, or an ID-JAG the enterprise IdP issues for this server. */
  private async assertion(scope: string | undefined): Promise<string> {
    if (this.settings.grant === 'jwt-bearer') return this.secret('assertion');
    const idp = this.settings.idp!;
    if (!this.authorizationServer || !this.resource)
      throw new Error('the MCP server published no protected-resource metadata, which enterprise sign-in needs (RFC 9728)');
    const request = {
      audience: this.authorizationServer,
      resource: this.resource,
      idToken: await this.secret('idp.idToken'),
      clientId: idp.clientId,
      ...(idp.clientSecret !== undefined ? { clientSecret: await this.secret('idp.clientSecret') } : {}),
      ...(scope ? { scope } : {}),
      ...(this.fetchFn ? { fetchFn: this.fetchFn } : {}),
    };
    const grant = idp.tokenEndpoint
      ? await requestJwtAuthorizationGrant({ ...request, tokenEndpoint: idp.tokenEndpoint })
      : await discoverAndRequestJwtAuthGrant({ ...request, idpUrl: idp.issuer! });
    return grant.jwtAuthGrant;
  }

  /** Recorded by `auth()` after discovery: the ID-JAG is requested for this authorization server and resource. */
  saveAuthorizationServerUrl(url: string): void {
    this.authorizationServer = url;
  }

  saveResourceUrl(url: string): void {
    this.resource = url;
  }

  redirectToAuthorization(): void {
    throw new Error(`grant "${this.settings.grant}" never sends anyone to sign in`);
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error(`grant "${this.settings.grant}" uses no PKCE verifier`);
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'tokens' || scope === 'all') await this.credentials.forget('tokens');
  }
}
