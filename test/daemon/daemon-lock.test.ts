import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acquireLock, releaseLock } from '../../src/surfaces/daemon/lock.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RACER = join(root, 'test/daemon/lock-racer.ts');
const TSX = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;

/** Starts `count` processes that each race for every lock path at the same instants; resolves with their results. */
async function race(count: number, paths: string[]): Promise<boolean[][]> {
  const startAt = Date.now() + 2_500; // after every racer has loaded
  const racers = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--import', TSX, RACER, String(startAt), '40', ...paths], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const lines = await Promise.all(
    racers.map(
      (child) =>
        new Promise<string>((done, fail) => {
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString('utf8');
            if (out.includes('\n')) done(out.trim());
          });
          child.once('exit', (code) => fail(new Error(`a racer exited (code ${code}) before it reported`)));
        }),
    ),
  );
  // The holders stay alive until every racer has reported, so a loser cannot take a lock for stale.
  for (const child of racers) child.stdin.end();
  return lines.map((line) => JSON.parse(line) as boolean[]);
}

describe('the daemon lock', () => {
  it('goes to exactly one of four processes that take it at the same instant, every time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-lock-'));
    const paths = Array.from({ length: 12 }, (_, i) => join(dir, `daemon-${i}.lock`));
    const results = await race(4, paths);
    const winners = paths.map((_, i) => results.filter((r) => r[i]).length);
    expect(winners).toEqual(paths.map(() => 1));
  });

  it('holds the pid from the instant it exists, replaces a stale lock and refuses a live one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-lock-'));
    const lock = join(dir, 'daemon.lock');
    // A holder long gone (pid 2^22 - 1 is above the default pid_max) and a file that holds no pid are both stale.
    writeFileSync(lock, String(4_194_303));
    expect(acquireLock(lock)).toEqual({ ok: true });
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
    expect(acquireLock(lock, process.pid + 1)).toEqual({ ok: false, holder: process.pid });
    releaseLock(lock, process.pid + 1);
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
    releaseLock(lock);
    writeFileSync(lock, '');
    expect(acquireLock(lock)).toEqual({ ok: true });
    releaseLock(lock);
    expect(() => readFileSync(lock)).toThrow(/ENOENT/);
  });
});
