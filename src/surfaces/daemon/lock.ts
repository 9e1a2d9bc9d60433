/**
 * One daemon per user and config. The lock file holds the holder's pid from the instant it exists: it is created
 * whole by `createPrivateFile` (written aside, then hard-linked into place, which fails when another holds it). (Creating
 * it with `wx` and writing the pid after left a moment where a racer read an empty file, took it for stale and
 * took the lock too: two daemons, and a starter that fell back inline.)
 */
import { linkSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createPrivateFile } from '../../private-files.js';
import { isAlive } from './paths.js';

export type LockResult = { ok: true } | { ok: false; holder: number };

/** Takes the lock, or says who holds it. A lock whose holder is gone is stale and replaced. */
export function acquireLock(lockPath: string, pid = process.pid): LockResult {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createPrivateFile(lockPath, String(pid))) return { ok: true };
    const holder = readHolder(lockPath);
    if (holder === undefined) continue; // released between our link and our read
    if (holder && isAlive(holder)) return { ok: false, holder };
    const taken = removeStale(lockPath, pid);
    if (taken !== undefined) return { ok: false, holder: taken };
  }
  return { ok: false, holder: 0 };
}

export function releaseLock(lockPath: string, pid = process.pid): void {
  if (readHolder(lockPath) === pid) rmSync(lockPath, { force: true });
}

/** The pid in the lock, 0 for a file that holds none (left by an older mcpx), undefined when there is no lock. */
function readHolder(lockPath: string): number | undefined {
  try {
    const holder = Number(readFileSync(lockPath, 'utf8').trim());
    return Number.isInteger(holder) && holder > 0 ? holder : 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Moves a stale lock aside (rename is atomic, so one racer gets it). If what it moved turns out to be a live
 * holder's fresh lock (another racer replaced the stale one first), it is put back and that holder returned.
 */
function removeStale(lockPath: string, pid: number): number | undefined {
  const aside = `${lockPath}.stale-${pid}`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const holder = readHolder(aside);
    if (holder && isAlive(holder)) {
      try {
        linkSync(aside, lockPath);
      } catch {
        // A third racer linked in the meantime: it holds the lock now; ours is not taken either way.
      }
      return holder;
    }
    return undefined;
  } finally {
    rmSync(aside, { force: true });
  }
}
