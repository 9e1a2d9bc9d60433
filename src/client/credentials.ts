/**
 * Credentials at first use: a server's `env` or `headers` entry `{"ask": "GitHub token", "secret": true}` is
 * read from the secret store, or asked for as mcpx's own question (through the same handler, policy, broker and
 * surfaces as a server's) and kept in the secret store. The value never reaches the era cache, the config, the
 * broker's records or the audit log: a secret question's answer is taken into the secret store as it is given.
 */
import { McpxError } from '../errors.js';
export { filled } from './filled.js';
import type { SecretValue } from '../config/oauth-schema.js';
import { fillReference, type UnsetReference } from '../config/expand.js';
import { isHttpServer, type HttpServerConfig, type ServerConfig } from '../config/schema.js';
import { CREDENTIAL_FIELD, SECRET_KEPT } from '../secrets/answer.js';
import type { SecretStore } from '../secrets/types.js';
import type { ElicitationSchema, SecretRef } from '../types.js';

/** The values of the asked entries, by where they go. */
export interface AskedValues {
  env?: Record<string, string>;
  headers?: Record<string, string>;
  /** The `oauth` block's secrets (`clientSecret`, `privateKey`, `assertion`, `idp.clientSecret`, `idp.idToken`). */
  oauth?: Record<string, string>;
}

/** One `{"ask": ...}` entry of a server's config. */
export interface AskedEntry {
  field: CredentialField;
  key: string;
  ask: string;
  secret: boolean;
  /** Where the value is kept in the secret store. */
  ref: SecretRef;
  /** An unset `${VAR}` of the config: the value is filled into the text where the reference stood. */
  reference?: UnsetReference['reference'];
}

/** Where an asked value goes: the server's environment, its HTTP headers, or its OAuth client. */
export type CredentialField = 'env' | 'headers' | 'oauth';

/** The secret store service for a server's credentials; the account is `env.NAME`, `headers.Name` or `oauth.clientSecret`. */
export function credentialRef(server: string, field: CredentialField, key: string): SecretRef {
  return { service: `credential:${server}`, account: `${field}.${key}` };
}

export function askedEntries(name: string, server: ServerConfig): AskedEntry[] {
  const entries: AskedEntry[] = [];
  const map = isHttpServer(server)
    ? { field: 'headers' as const, values: server.headers }
    : { field: 'env' as const, values: server.env };
  for (const [key, value] of Object.entries(map.values ?? {})) {
    if (typeof value === 'string') continue;
    entries.push({
      field: map.field,
      key,
      ask: value.ask,
      secret: value.secret === true,
      ref: credentialRef(name, map.field, key),
      ...('reference' in value ? { reference: (value as UnsetReference).reference } : {}),
    });
  }
  if (isHttpServer(server)) {
    for (const [key, value] of oauthSecrets(server)) {
      if (!('ask' in value)) continue;
      entries.push({
        field: 'oauth',
        key,
        ask: value.ask,
        secret: value.secret === true,
        ref: credentialRef(name, 'oauth', key),
      });
    }
  }
  return entries;
}

/** The secrets an `oauth` block refers to, by key (`idp.idToken` for the nested ones). */
export function oauthSecrets(server: HttpServerConfig): Array<[string, SecretValue]> {
  const oauth = server.oauth;
  if (!oauth) return [];
  const all: Array<[string, SecretValue | string | undefined]> = [
    ['clientSecret', oauth.clientSecret],
    ['privateKey', oauth.privateKey],
    ['assertion', oauth.assertion],
    ['idp.clientSecret', oauth.idp?.clientSecret],
    ['idp.idToken', oauth.idp?.idToken],
  ];
  return all.filter((entry): entry is [string, SecretValue] => entry[1] !== undefined && typeof entry[1] !== 'string');
}

/** Reads each asked entry from the secret store; `missing` lists those not there. */
export async function readAsked(
  entries: AskedEntry[],
  secrets: SecretStore,
): Promise<{ values: AskedValues; missing: AskedEntry[] }> {
  const values: AskedValues = {};
  const missing: AskedEntry[] = [];
  for (const entry of entries) {
    const value = await secrets.get(entry.ref.service, entry.ref.account);
    if (value === undefined) missing.push(entry);
    else (values[entry.field] ??= {})[entry.key] = entry.reference ? fillReference(entry.reference, value) : value;
  }
  return { values, missing };
}

/** The `elicitation/create` params of mcpx's own question for one entry. */
export function credentialParams(server: string, entry: AskedEntry): Record<string, unknown> {
  const requestedSchema: ElicitationSchema = {
    type: 'object',
    properties: { [CREDENTIAL_FIELD]: { type: 'string', title: entry.ask, minLength: 1 } },
    required: [CREDENTIAL_FIELD],
  };
  const where =
    entry.field === 'env'
      ? `the environment variable ${entry.key}`
      : entry.field === 'headers'
        ? `the HTTP header ${entry.key}`
        : `its OAuth setting oauth.${entry.key}`;
  const kept = entry.secret ? 'kept in the secret store, never in a file mcpx writes or a log' : 'kept in the secret store';
  // For the person: an agent answering through `mcpx serve` must never be handed a credential question.
  return {
    mode: 'form',
    message: `mcpx needs ${entry.ask} for server "${server}" (${where}) before it can start it. It is ${kept}.`,
    requestedSchema,
    _meta: { 'io.mcpx/audience': 'user' },
  };
}

/**
 * Takes the value out of an answer to a credential question and keeps it. An answer given through a broker
 * holding the secret arrives as SECRET_KEPT (the broker stored it): it is read back from the store.
 */
export async function keepAnswer(
  server: string,
  entry: AskedEntry,
  answer: { action: string; content?: Record<string, unknown> },
  secrets: SecretStore,
): Promise<string> {
  if (answer.action !== 'accept') {
    throw new McpxError(
      'SECRET_MISSING',
      `server "${server}" needs ${entry.ask} (${entry.field}.${entry.key}); the question was answered ${answer.action}, so the server was not started. Call again to be asked again.`,
      {
        data: { server, field: `${entry.field}.${entry.key}`, action: answer.action },
      },
    );
  }
  const given = answer.content?.[CREDENTIAL_FIELD];
  if (given === SECRET_KEPT) {
    const kept = await secrets.get(entry.ref.service, entry.ref.account);
    if (kept !== undefined) return kept;
    throw new McpxError(
      'SECRET_MISSING',
      `the answer for ${entry.ask} (server "${server}") was kept in another secret store than this process reads (${secrets.location}); answer again from this machine`,
      {
        data: { server, field: `${entry.field}.${entry.key}` },
      },
    );
  }
  if (typeof given !== 'string' || given === '') {
    throw new McpxError(
      'SECRET_MISSING',
      `server "${server}" needs ${entry.ask} (${entry.field}.${entry.key}), and the answer held no value`,
      { data: { server, field: `${entry.field}.${entry.key}` } },
    );
  }
  await secrets.set(entry.ref.service, entry.ref.account, given);
  return given;
}
