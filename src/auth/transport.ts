/**
 * Streamable HTTP with sign-in: when the SDK's `auth()` needs the person (it redirected and threw
 * `UnauthorizedError`), show the authorization URL, wait for the browser to come back, exchange the code
 * (`finishAuth` checks the RFC 9207 `iss`), and send the same message again. Bounded, so a server that never
 * accepts stops asking.
 */
import { UnauthorizedError, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { OAuthTransport, type OAuthTransportOptions } from './oauth-transport.js';
import type { McpxOAuthProvider } from './provider.js';

/** Sign-ins per message: the first, and one step-up to more scopes. */
export const MAX_SIGN_INS_PER_MESSAGE = 2;

type SendOptions = Parameters<OAuthTransport['send']>[1];

export class SigningInTransport extends OAuthTransport {
  constructor(
    url: URL,
    options: OAuthTransportOptions,
    private readonly provider: McpxOAuthProvider,
    /** The server's refresh lock: a 401's refresh (or sign-in start) runs under it. */
    lockPath?: string,
  ) {
    super(
      url,
      options,
      provider,
      lockPath
        ? {
            path: lockPath,
            kept: { stored: () => provider.storedAccessToken(), forget: () => provider.forgetRequestTokens() },
          }
        : undefined,
    );
  }

  override async send(message: JSONRPCMessage | JSONRPCMessage[], options?: SendOptions): Promise<void> {
    // A token the server stopped accepting may mean its authorization server changed (SEP-2352): discover afresh
    // once before asking the person, so the sign-in they see is with the server's current authorization server.
    let rediscovered = (await this.provider.tokens()) === undefined;
    for (let signIns = 0; ;) {
      try {
        return await super.send(message as JSONRPCMessage, options);
      } catch (error) {
        // Refused (or failed) with the kept token: whatever comes next reads the secret store afresh.
        this.provider.forgetRequestTokens();
        const url = this.provider.takeAuthorizationUrl();
        if (!(error instanceof UnauthorizedError) || !url) throw error;
        if (!rediscovered) {
          rediscovered = true;
          await this.provider.invalidateCredentials('discovery');
          continue;
        }
        if (signIns >= MAX_SIGN_INS_PER_MESSAGE) throw error;
        signIns += 1;
        await this.finishAuth(await this.provider.signIn(url));
      }
    }
  }
}
