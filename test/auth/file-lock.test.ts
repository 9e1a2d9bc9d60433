/** The cross-process lock under OAuth refresh: one holder at a time, and a dead or silent holder never blocks for long. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/auth/index.js';
import { isMcpxError } from '../../src/errors.js';

const lockIn = (): string => join(mkdtempSync(join(tmpdir(), 'mcpx-lock-')), 'locks', 'x.lock');

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.once('exit', done));
  return child.pid!;
}

describe('withFileLock', () => {
  it('lets one body run at a time and removes the lock after', async () => {
    const path = lockIn();
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        withFileLock(path, async () => {
          inside += 1;
          most = Math.max(most, inside);
          expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid });
          await new Promise((resolve) => setImmediate(resolve));
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(existsSync(path)).toBe(false);
  });

  it('runs a body that takes the lock it already holds at once, and still excludes other work', async () => {
    const path = lockIn();
    const order: string[] = [];
    const outer = withFileLock(path, async () => {
      order.push('outer');
      // The refresh under a 401 may read tokens, which may refresh under the same lock: not a wait on itself.
      await withFileLock(path, async () => void order.push('inner'), { waitMs: 200 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('outer done');
    });
    const other = withFileLock(path, async () => void order.push('other'));
    await Promise.all([outer, other]);
    expect(order).toEqual(['outer', 'inner', 'outer done', 'other']);
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a lock whose holder died', async () => {
    const path = lockIn();
    await withFileLock(path, async () => undefined);
    writeFileSync(path, JSON.stringify({ pid: await deadPid(), nonce: 'crashed' }));
    expect(await withFileLock(path, async () => 'ran')).toBe('ran');
  });

  it('takes over a lock not touched for staleMs, even with a live pid', async () => {
    const path = lockIn();
    await withFileLock(path, async () => undefined);
    writeFileSync(path, JSON.stringify({ pid: process.ppid, nonce: 'frozen' }));
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    expect(await withFileLock(path, async () => 'ran', { staleMs: 30_000 })).toBe('ran');
  });

  it('gives up on a live, fresh holder after waitMs with AUTH_LOCKED naming the file, and leaves its lock alone', async () => {
    const path = lockIn();
    await withFileLock(path, async () => undefined);
    const holder = JSON.stringify({ pid: process.ppid, nonce: 'busy' });
    writeFileSync(path, holder);
    const error: unknown = await withFileLock(path, async () => 'ran', { waitMs: 50 }).catch((e: unknown) => e);
    expect(isMcpxError(error, 'AUTH_LOCKED')).toBe(true);
    expect((error as Error).message).toContain(path);
    expect(readFileSync(path, 'utf8')).toBe(holder);
  });
});
