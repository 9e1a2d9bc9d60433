/**
 * `mcpx/auth`: OAuth 2.1 for Streamable HTTP servers (docs/auth.md), over the secret store (keychain or 0600 file).
 */
export { createAuth, McpxOAuthProvider } from '../auth/index.js';
export type { Auth, AuthOptions, OAuthSettings, PresentSignIn } from '../auth/index.js';
export { openSecretStore } from '../secrets/index.js';
export type { SecretStore } from '../secrets/index.js';
