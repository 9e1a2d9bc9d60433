/**
 * The OS keychain through @napi-rs/keyring: macOS Keychain, Windows Credential Manager, and on Linux the
 * Secret Service (gnome-keyring, KWallet, KeePassXC) on the session bus. On Linux the entry is pinned to the
 * Secret Service: the binding's other Linux store, the kernel keyring, forgets everything at reboot.
 */
import type { AsyncEntry as AsyncEntryType, EntryOptions } from '@napi-rs/keyring';
import { McpxError } from '../errors.js';
import type { SecretStore } from './types.js';

/** Every mcpx entry's keychain service starts with this, so mcpx's secrets are findable and never collide. */
export const KEYCHAIN_SERVICE_PREFIX = 'mcpx:';
const PROBE_TIMEOUT_MS = 5_000;

type Keyring = { AsyncEntry: typeof AsyncEntryType };

const entryOptions: EntryOptions | undefined = process.platform === 'linux' ? { linux: { store: 'secret-service' } } : undefined;

export const KEYCHAIN_LOCATION =
  process.platform === 'darwin'
    ? 'macOS Keychain'
    : process.platform === 'win32'
      ? 'Windows Credential Manager'
      : 'Secret Service (org.freedesktop.secrets) on the D-Bus session bus';

/** The keychain store, or why there is none here (no binding for this platform, no Secret Service, locked). */
export async function openKeychainSecretStore(): Promise<{ store: SecretStore } | { reason: string }> {
  let keyring: Keyring;
  try {
    keyring = (await import('@napi-rs/keyring')) as Keyring;
  } catch (err) {
    return { reason: `the keychain binding did not load: ${message(err)}` };
  }
  const entry = (service: string, account: string): AsyncEntryType =>
    new keyring.AsyncEntry(KEYCHAIN_SERVICE_PREFIX + service, account, entryOptions);
  // A read of an entry that is not there answers null where the keychain works, and fails where it does not.
  try {
    await entry('probe', 'probe').getPassword(AbortSignal.timeout(PROBE_TIMEOUT_MS));
  } catch (err) {
    return { reason: message(err) };
  }
  const store: SecretStore = {
    kind: 'keychain',
    location: KEYCHAIN_LOCATION,
    async get(service, account) {
      const value = await guard(() => entry(service, account).getPassword());
      return value ?? undefined;
    },
    async set(service, account, value) {
      await guard(() => entry(service, account).setPassword(value));
    },
    async delete(service, account) {
      return guard(() => entry(service, account).deletePassword());
    },
  };
  return { store };
}

async function guard<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (err) {
    throw new McpxError('SECRET_STORE_FAILED', `the keychain (${KEYCHAIN_LOCATION}) refused: ${message(err)}`, { cause: err });
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
