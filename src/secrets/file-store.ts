/**
 * The fallback where no OS keychain works (a headless Linux box): one JSON file, mode 0600, in a 0700 state dir.
 * Writes go to a temp file renamed over the old one, under the file lock, so two processes never lose each other's secrets.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isMcpxError, McpxError } from '../errors.js';
import { withFileLock } from '../local/file-lock.js';
import { makePrivateDir, tightenPrivateDir, writePrivateFile } from '../private-files.js';
import type { SecretStore } from './types.js';

export const SECRETS_FILE_NAME = 'secrets.json';
const LOCK_STALE_MS = 10_000;
/** About what 400 tries 5-25 ms apart waited before the lock was shared. */
const LOCK_WAIT_MS = 6_000;

type Secrets = Record<string, Record<string, string>>;

export function openFileSecretStore(stateDir: string): SecretStore {
  const path = join(stateDir, SECRETS_FILE_NAME);

  const read = async (): Promise<Secrets> => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw storeError(`cannot read the secrets file ${path}`, err);
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Secrets;
    } catch {
      // fall through: a file we did not write is not silently replaced
    }
    throw storeError(`the secrets file ${path} is not a JSON object; move it aside to start afresh`);
  };

  const update = async (change: (secrets: Secrets) => boolean): Promise<boolean> =>
    withLock(`${path}.lock`, async () => {
      const secrets = await read();
      const changed = change(secrets);
      if (changed) await writeAtomically(path, JSON.stringify(secrets, null, 2) + '\n');
      return changed;
    });

  return {
    kind: 'file',
    location: path,
    async get(service, account) {
      return (await read())[service]?.[account];
    },
    async set(service, account, value) {
      // Secrets go nowhere another user could read, even where no surface tightened the dir first.
      makePrivateDir(stateDir);
      tightenPrivateDir(stateDir);
      await update((secrets) => {
        (secrets[service] ??= {})[account] = value;
        return true;
      });
    },
    async delete(service, account) {
      return update((secrets) => {
        const accounts = secrets[service];
        if (!accounts || !(account in accounts)) return false;
        delete accounts[account];
        if (Object.keys(accounts).length === 0) delete secrets[service];
        return true;
      }).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      });
    },
  };
}

async function writeAtomically(path: string, text: string): Promise<void> {
  try {
    // 0600 from the first byte, so a secret is never readable by others, even briefly; synced, so never lost.
    writePrivateFile(path, text, { durable: true });
  } catch (err) {
    throw storeError(`cannot write the secrets file ${path}`, err);
  }
}

/** The one cross-process file lock (local/file-lock.ts), its timeout reported as this store's failure. */
async function withLock<T>(lockPath: string, body: () => Promise<T>): Promise<T> {
  try {
    return await withFileLock(lockPath, body, { staleMs: LOCK_STALE_MS, waitMs: LOCK_WAIT_MS });
  } catch (err) {
    if (isMcpxError(err) && err.code === 'AUTH_LOCKED')
      throw storeError(`the secrets file is locked by ${lockPath}; remove it if no mcpx is running`);
    throw err;
  }
}

function storeError(message: string, cause?: unknown): McpxError {
  return new McpxError('SECRET_STORE_FAILED', message, { cause });
}
