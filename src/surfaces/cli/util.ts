/** Small helpers the commands share. */
import type { Readable } from 'node:stream';
import type { Question } from '../../types.js';
import { questionOf } from '../../broker/light.js';
import type { ShownQuestion } from '../backend/backend.js';

export async function readStdin(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/** A listed question in the shared Question shape, for the terminal form. */
export const toQuestion = (listed: ShownQuestion): Question => questionOf(listed);
