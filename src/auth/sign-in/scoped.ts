/**
 * A sign-in for more scopes, asked for by a process that met the server's `403 insufficient_scope` but cannot wait
 * for the browser (`mcpx run` with nobody to answer hands it to the daemon): the SDK's step-up as its transport does
 * it (`auth()` forced to a fresh authorization for the union of the scopes), shown through the provider (a question
 * of the call that asks), and the code exchanged with the transport's `finishAuth` (the RFC 9207 `iss` check).
 */
import { auth, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import type { McpxOAuthProvider } from '../provider.js';

export async function signInForScope(
  provider: McpxOAuthProvider,
  serverUrl: URL,
  scope: string,
  fetch?: FetchLike,
): Promise<void> {
  const result = await auth(provider, { serverUrl, scope, forceReauthorization: true, ...(fetch ? { fetchFn: fetch } : {}) });
  if (result === 'AUTHORIZED') return;
  const url = provider.takeAuthorizationUrl();
  if (!url) throw new Error(`the sign-in to ${serverUrl.href} produced no authorization URL`);
  const back = await provider.signIn(url);
  // Never started: it only completes the sign-in, as the connection's own transport would.
  await new StreamableHTTPClientTransport(serverUrl, { authProvider: provider, ...(fetch ? { fetch } : {}) }).finishAuth(back);
}
