/**
 * Secrets: OAuth tokens and the credentials mcpx asks for at first use. The OS keychain where one answers,
 * else a 0600 file in the state dir. Never a config file, never a log or an audit record.
 * Imports nothing from the surfaces.
 */
import { McpxError } from '../errors.js';
import { openFileSecretStore } from './file-store.js';
import { openKeychainSecretStore } from './keychain-store.js';
import { rememberSecret, secretStoreForm } from './redact.js';
import type { SecretStore, SecretStoreOptions } from './types.js';

export type { SecretStore, SecretStoreOptions } from './types.js';
export { SECRETS_FILE_NAME } from './file-store.js';
export { KEYCHAIN_SERVICE_PREFIX } from './keychain-store.js';

/** Opens the keychain when it works here, else the file; `fallbackReason` says why the keychain was not used. */
export async function openSecretStore(options: SecretStoreOptions): Promise<SecretStore & { fallbackReason?: string }> {
  return remembering(await openPreferred(options));
}

/** The fields of a JSON value in the store (OAuth tokens, a registered client, a DPoP key) that are secret. */
const SECRET_FIELDS = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'registration_access_token',
  'd',
  'p',
  'q',
  'dp',
  'dq',
  'qi',
]);

/** Every value read or written is remembered, so no message or record of this process shows it (redact.ts). */
function remembering<S extends SecretStore>(store: S): S {
  const note = (account: string, value: string | undefined): void => {
    if (value === undefined) return;
    let parsed: unknown;
    try {
      parsed = value.startsWith('{') ? JSON.parse(value) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed !== 'object') return rememberSecret(value, secretStoreForm(account));
    // A JSON record (issuer URLs, token types, expiry) is no secret as a whole: only its secret fields are.
    for (const [field, inner] of Object.entries(parsed as Record<string, unknown>))
      if (SECRET_FIELDS.has(field) && typeof inner === 'string') rememberSecret(inner, secretStoreForm(`${account} ${field}`));
  };
  return {
    ...store,
    async get(service: string, account: string) {
      const value = await store.get(service, account);
      note(account, value);
      return value;
    },
    async set(service: string, account: string, value: string) {
      note(account, value);
      await store.set(service, account, value);
    },
  };
}

async function openPreferred(options: SecretStoreOptions): Promise<SecretStore & { fallbackReason?: string }> {
  const prefer = options.prefer ?? preferFromEnv(process.env.MCPX_SECRET_STORE);
  if (prefer === 'file')
    return Object.assign(openFileSecretStore(options.stateDir), { fallbackReason: 'MCPX_SECRET_STORE=file' });
  const keychain = await openKeychainSecretStore();
  if ('store' in keychain) return keychain.store;
  if (prefer === 'keychain')
    throw new McpxError(
      'SECRET_STORE_FAILED',
      `no keychain works here (${keychain.reason}); unset MCPX_SECRET_STORE to use the file in the state dir`,
    );
  return Object.assign(openFileSecretStore(options.stateDir), { fallbackReason: `no keychain: ${keychain.reason}` });
}

function preferFromEnv(value: string | undefined): 'auto' | 'keychain' | 'file' {
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'keychain' || value === 'file') return value;
  throw new McpxError('SECRET_STORE_FAILED', `MCPX_SECRET_STORE is "${value}"; use auto, keychain or file`);
}
