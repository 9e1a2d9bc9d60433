/**
 * The asked credentials a configured server needs before it can start (`{"ask": ...}` entries): read once from the
 * secret store, and each value's stored form kept so connect failures are scrubbed of it.
 */
import { McpxError } from '../../errors.js';
import { stateDir } from '../../paths.js';
import type { SecretStore } from '../../secrets/types.js';
import { secretStoreForm } from '../../secrets/redact.js';
import { askedEntries, readAsked, type AskedEntry, type AskedValues } from '../credentials.js';
import type { ClientPoolOptions } from './pool.js';

export interface AskedCredentials {
  secrets(): Promise<SecretStore>;
  /** The asked entries of a configured server that have no value yet, here or in the secret store. */
  missingCredentials(name: string): Promise<AskedEntry[]>;
  /** The values of the server's asked entries, once all are known in this process. */
  values(name: string): AskedValues | undefined;
}

/** `secretForms`: the values to scrub from connect failures, by their stored form; each value read is added. */
export function createAskedCredentials(options: ClientPoolOptions, secretForms: Map<string, string>): AskedCredentials {
  let secretStore: Promise<SecretStore> | undefined;
  const secrets = (): Promise<SecretStore> =>
    (secretStore ??= (
      options.secrets ??
      (async () => (await import('../../secrets/index.js')).openSecretStore({ stateDir: stateDir(options.env) }))
    )());
  const askedValues = new Map<string, AskedValues>();

  const missingCredentials = async (name: string): Promise<AskedEntry[]> => {
    const server = options.servers?.[name] ? undefined : options.config.mcpServers[name];
    if (!server || askedValues.has(name)) return [];
    const entries = askedEntries(name, server);
    if (!entries.length) return [];
    const { values, missing } = await readAsked(entries, await secrets());
    if (!missing.length) askedValues.set(name, values);
    for (const [field, kept] of Object.entries(values) as Array<[string, Record<string, string>]>)
      for (const [key, value] of Object.entries(kept)) secretForms.set(value, secretStoreForm(`${field}.${key}`));
    return missing;
  };

  return { secrets, missingCredentials, values: (name) => askedValues.get(name) };
}

/** A call cannot ask (a listing): the credentials must be in the secret store already. */
export function credentialsMissing(server: string, missing: AskedEntry[]): McpxError {
  const names = missing.map((m) => `${m.ask} (${m.field}.${m.key})`).join(', ');
  return new McpxError(
    'SECRET_MISSING',
    `server "${server}" needs ${names} before it can start; mcpx doctor asks for ${missing.length === 1 ? 'it' : 'them'} (so does a call of one of its tools: mcpx call ${server}.<tool>)`,
    {
      data: { server, missing: missing.map((m) => `${m.field}.${m.key}`) },
    },
  );
}
