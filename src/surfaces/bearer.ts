/**
 * Bearer tokens for the listeners other local users could reach (the daemon's loopback port, `mcpx serve --http`):
 * made the same way and compared in constant time (their files are written by private-files.ts). Shared by the
 * surfaces; itself no surface (it imports none).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh token: 32 random bytes, hex. */
export function newBearerToken(): string {
  return randomBytes(32).toString('hex');
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * The token among `tokens` that an `Authorization: Bearer <token>` header carries, else undefined. Digests are
 * compared, so the time taken says nothing of a token's length or content; every token is compared.
 */
export function bearerIn(header: string | undefined, tokens: readonly string[]): string | undefined {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (given === undefined) return undefined;
  const givenDigest = digest(given);
  let found: string | undefined;
  for (const token of tokens) if (timingSafeEqual(givenDigest, digest(token)) && found === undefined) found = token;
  return found;
}
