/**
 * mcpx's own question for a secret credential: typed masked, never echoed, and the answer is kept in the secret
 * store by whoever records it (the broker), not written anywhere here.
 */
import * as clack from '@clack/prompts';
import { CREDENTIAL_FIELD } from '../../../secrets/answer.js';
import type { Answer, ElicitationSchema } from '../../../types.js';
import { sanitizeLine } from '../sanitize.js';
import { onePrompt, type ClackIO } from './prompt-io.js';

export async function askSecret(schema: ElicitationSchema | undefined, io: ClackIO): Promise<Answer> {
  const title = schema?.properties[CREDENTIAL_FIELD]?.title;
  const value = await onePrompt(io, (io) =>
    clack.password({
      ...io,
      message: `${sanitizeLine(typeof title === 'string' ? title : 'Secret')} (input hidden; empty to decline)`,
    }),
  );
  if (clack.isCancel(value)) return { action: 'cancel' };
  if (value === '') return { action: 'decline' };
  return { action: 'accept', content: { [CREDENTIAL_FIELD]: value } };
}
