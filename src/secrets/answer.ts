/**
 * The answer to a secret question (mcpx's own, for a credential): its value goes to the secret store the moment
 * it is given, and what anything records (the broker's store, the audit log, events) holds SECRET_KEPT instead.
 */
import { McpxError } from '../errors.js';
import type { SecretRef } from '../types.js';
import type { SecretStore } from './types.js';

/** The one field of a credential question. */
export const CREDENTIAL_FIELD = 'value';
/** What a secret answer's content reads once the value is in the secret store. */
export const SECRET_KEPT = '(kept in the secret store)';

/** Keeps the secret and returns the content to record in its place. */
export async function keepSecretContent(
  ref: SecretRef,
  content: Record<string, unknown>,
  store: SecretStore,
): Promise<Record<string, unknown>> {
  const value = content[CREDENTIAL_FIELD];
  if (typeof value !== 'string' || value === '' || value === SECRET_KEPT) {
    throw new McpxError('ANSWER_INVALID', `a secret answer needs a non-empty "${CREDENTIAL_FIELD}"`, {
      data: { issues: [{ field: CREDENTIAL_FIELD, expected: 'a non-empty string', message: 'missing' }] },
    });
  }
  await store.set(ref.service, ref.account, value);
  return { ...content, [CREDENTIAL_FIELD]: SECRET_KEPT };
}
