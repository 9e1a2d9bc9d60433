/**
 * Bearer tokens for the listeners other local users could reach (the daemon's loopback port, `mcpx serve --http`):
 * made the same way, kept in files only their owner can read, and compared in constant time. Shared by the
 * surfaces; itself no surface (it imports none).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

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

/**
 * Creates a 0600 file holding `text` (its dir 0700) unless one exists: true when this call made it. Whole or not at
 * all, and of two processes racing, exactly one makes it (a hard link fails when the name is taken), so two serves
 * starting at once agree on one token.
 */
export function createPrivateFile(path: string, text: string): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}
