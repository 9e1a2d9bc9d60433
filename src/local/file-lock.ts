/**
 * The one cross-process file lock (OAuth refresh, the secrets file): created exclusively (O_EXCL), holding its
 * holder's pid and a nonce, touched while held. A lock whose holder is dead or that was not touched for `staleMs`
 * is broken, so a crashed holder blocks nobody for longer; within one process it is a queue, never polled.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { McpxError } from '../errors.js';
import { makePrivateDir } from '../private-files.js';
import { processAlive } from './process-alive.js';

export interface FileLockOptions {
  /** A lock not touched for this long is taken over (default 30 s); the holder touches it every third of it. */
  staleMs?: number;
  /** How long to wait for a live holder before giving up (default 120 s). */
  waitMs?: number;
}

interface Holder {
  pid: number;
  nonce: string;
}

const DEFAULT_STALE_MS = 30_000;
const DEFAULT_WAIT_MS = 120_000;
const queues = new Map<string, Promise<unknown>>();
/** The locks the current async work holds: taking one again inside it runs at once instead of waiting on itself. */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/** Runs `body` while holding the lock at `path` (created, with its directory, on first use). */
export async function withFileLock<T>(path: string, body: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const mine = held.getStore();
  if (mine?.has(path)) return body();
  const inside = (): Promise<T> => held.run(new Set([...(mine ?? []), path]), body);
  const previous = queues.get(path) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => holding(path, inside, options));
  const tail = run.catch(() => undefined);
  queues.set(path, tail);
  void tail.then(() => {
    if (queues.get(path) === tail) queues.delete(path);
  });
  return run;
}

async function holding<T>(path: string, body: () => Promise<T>, options: FileLockOptions): Promise<T> {
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const me: Holder = { pid: process.pid, nonce: randomBytes(12).toString('hex') };
  await acquire(path, me, staleMs, options.waitMs ?? DEFAULT_WAIT_MS);
  const touch = setInterval(() => {
    const now = new Date();
    void utimes(path, now, now).catch(() => undefined);
  }, staleMs / 3);
  touch.unref();
  try {
    return await body();
  } finally {
    clearInterval(touch);
    // Only our own lock: if ours was broken as stale, the file is someone else's now.
    if ((await readHolder(path))?.nonce === me.nonce) await rm(path, { force: true });
  }
}

async function acquire(path: string, me: Holder, staleMs: number, waitMs: number): Promise<void> {
  makePrivateDir(dirname(path));
  const deadline = Date.now() + waitMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, 50)) {
    try {
      await writeFile(path, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await readHolder(path);
    if (holder && (await isStale(path, holder, staleMs))) {
      await breakLock(path, holder);
      continue;
    }
    if (Date.now() > deadline)
      throw new McpxError(
        'AUTH_LOCKED',
        `another mcpx (pid ${holder?.pid ?? '?'}) has held ${path} for over ${Math.round(waitMs / 1000)} s; remove the file if no mcpx is running`,
      );
    await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
  }
}

async function readHolder(path: string): Promise<Holder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<Holder>;
    return typeof parsed.pid === 'number' && typeof parsed.nonce === 'string'
      ? { pid: parsed.pid, nonce: parsed.nonce }
      : undefined;
  } catch {
    // Gone, or not yet written by a holder that just created it: not stale on that evidence.
    return undefined;
  }
}

async function isStale(path: string, holder: Holder, staleMs: number): Promise<boolean> {
  if (!processAlive(holder.pid)) return true;
  const touched = await stat(path).then(
    (s) => s.mtimeMs,
    () => Date.now(),
  );
  return Date.now() - touched > staleMs;
}

/**
 * Moves the stale lock aside (one rename wins) and checks that what moved is the lock judged stale. If a live
 * holder took the path in between, its lock is linked back (link never overwrites).
 */
async function breakLock(path: string, stale: Holder): Promise<void> {
  const aside = `${path}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(path, aside);
  } catch {
    return;
  }
  if ((await readHolder(aside))?.nonce !== stale.nonce) await link(aside, path).catch(() => undefined);
  await rm(aside, { force: true });
}
