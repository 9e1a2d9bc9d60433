/**
 * OAuth 2.1 for Streamable HTTP servers: one provider per server over the secret store, one loopback redirect per
 * process (opened on the first sign-in's need), and a transport that completes a sign-in and resends.
 */
import { join } from 'node:path';
import { StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import type { HttpServerConfig } from '../config/schema.js';
import { stateDir } from '../paths.js';
import type { SecretStore } from '../secrets/index.js';
import { openLoopbackReturn, type LoopbackOptions, type LoopbackReturn } from './loopback.js';
import { isMachineGrant, MachineOAuthProvider } from './machine-provider.js';
import { secretReader } from './oauth-secrets.js';
import { McpxOAuthProvider, type AuthorizationReturn, type OAuthSettings, type PresentSignIn } from './provider.js';
import { refreshLockPath } from './refresh.js';
import { signInForScope } from './sign-in/scoped.js';
import { serverCredentials } from './token-store.js';
import { SigningInTransport } from './transport.js';
import { OAuthTransport } from './oauth-transport.js';

export { McpxOAuthProvider, type AuthorizationReturn, type OAuthSettings, type PresentSignIn } from './provider.js';
export { MachineOAuthProvider, isMachineGrant, type MachineGrantConfig, type SecretReader } from './machine-provider.js';
export { serverCredentials, secondsLeft, OAUTH_SERVICE, type KeptTokens, type ServerCredentials } from './token-store.js';
export { openLoopbackReturn, CALLBACK_PATH, type LoopbackOptions, type LoopbackReturn } from './loopback.js';
export {
  presentAsQuestion,
  withSignInAsker,
  signInParams,
  signInErrorOf,
  SIGN_IN_META,
  type SignInAsker,
} from './sign-in/question.js';
export { answerSignInArrival } from './sign-in/answer.js';
export { SigningInTransport, MAX_SIGN_INS_PER_MESSAGE } from './transport.js';
export { needsRefresh, refreshLockPath, REFRESH_MARGIN_S } from './refresh.js';
export { withFileLock, type FileLockOptions } from '../local/file-lock.js';

export interface AuthOptions {
  /** The secret store, or how to open it on first need (a keychain probe is not paid by a host that never signs in). */
  store: SecretStore | (() => Promise<SecretStore>);
  /** Shows the sign-in URL to the person (a url-mode question); rejects when it cannot or they decline. */
  present: PresentSignIn;
  /** Where the browser comes back; default a loopback listener on 127.0.0.1 opened on first need. */
  back?: AuthorizationReturn;
  /** The default loopback listener's port and arrival hook. */
  loopback?: LoopbackOptions;
  /** Where the cross-process refresh locks live; default `<stateDir>/locks`. */
  lockDir?: string;
}

export interface Auth {
  transport(
    name: string,
    server: HttpServerConfig,
    /** `secrets`: the `oauth` block's asked values, read from the secret store (or asked for) by the pool. */
    options: { fetch?: FetchLike; requestInit?: RequestInit; secrets?: Record<string, string> },
  ): Promise<StreamableHTTPClientTransport>;
  provider(
    name: string,
    server: HttpServerConfig,
    fetch?: FetchLike,
    secrets?: Record<string, string>,
  ): Promise<McpxOAuthProvider>;
  /** Signs in afresh for `scope` (a step-up another process met), asked as the sign-in of the call in whose work it runs. */
  signInForScope(name: string, server: HttpServerConfig, scope: string): Promise<void>;
  close(): Promise<void>;
}

export function createAuth(options: AuthOptions): Auth {
  let loopback: Promise<LoopbackReturn> | undefined;
  const back = async (): Promise<AuthorizationReturn> =>
    options.back ?? (await (loopback ??= openLoopbackReturn(options.loopback)));
  let opened: Promise<SecretStore> | undefined;
  const store = (): Promise<SecretStore> =>
    (opened ??= typeof options.store === 'function' ? options.store() : Promise.resolve(options.store));
  const lockDir = options.lockDir ?? join(stateDir(process.env), 'locks');
  const provider = async (
    name: string,
    server: HttpServerConfig,
    fetch?: FetchLike,
    secrets?: Record<string, string>,
  ): Promise<McpxOAuthProvider> =>
    new McpxOAuthProvider(
      name,
      serverCredentials(await store(), name),
      await interactiveSettings(name, server, secrets),
      await back(),
      options.present,
      { serverUrl: new URL(server.url), lockPath: refreshLockPath(lockDir, name), ...(fetch ? { fetch } : {}) },
    );
  return {
    provider,
    signInForScope: async (name, server, scope) => signInForScope(await provider(name, server), new URL(server.url), scope),
    transport: async (name, server, { secrets, ...transportOptions }) => {
      // A machine grant never asks anyone: the SDK's transport trades the credential for a token on a 401.
      if (isMachineGrant(server.oauth)) {
        const credentials = serverCredentials(await store(), name);
        const machine = new MachineOAuthProvider(
          credentials,
          server.oauth,
          secretReader(name, server.oauth, secrets),
          transportOptions.fetch,
        );
        // One token request per 401 across processes: the fresh token is stored and the others send with it.
        return new OAuthTransport(new URL(server.url), transportOptions, machine, {
          path: refreshLockPath(lockDir, name),
          kept: { stored: async () => (await machine.tokens())?.access_token },
        });
      }
      return new SigningInTransport(
        new URL(server.url),
        transportOptions,
        await provider(name, server, transportOptions.fetch, secrets),
        refreshLockPath(lockDir, name),
      );
    },
    close: async () => {
      if (loopback) await (await loopback).close();
    },
  };
}

/** The authorization-code flow's settings, with a pre-registered client's secret read from where the config says. */
async function interactiveSettings(
  name: string,
  server: HttpServerConfig,
  secrets: Record<string, string> | undefined,
): Promise<OAuthSettings> {
  const { clientId, clientSecret, clientMetadataUrl, scope, dpop } = server.oauth ?? {};
  return {
    ...(clientId ? { clientId } : {}),
    ...(clientSecret !== undefined ? { clientSecret: await secretReader(name, server.oauth!, secrets)('clientSecret') } : {}),
    ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
    ...(scope ? { scope } : {}),
    ...(dpop !== undefined ? { dpop } : {}),
  };
}
