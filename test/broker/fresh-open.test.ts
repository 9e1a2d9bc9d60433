import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Database } from 'sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroker, openSqliteStore } from '../../src/broker/index.js';

const here = dirname(fileURLToPath(import.meta.url));
// Bundled once so the workers start fast; under node_modules so their package imports resolve.
const worker = join(here, '..', '..', 'node_modules', '.cache', 'mcpx-broker-tests', `fresh-open-worker-${process.pid}.mjs`);
const PROCESSES = 6;
const ROUNDS = 2;
// Half the default busy timeout: a wait of the 10 s class becomes SQLITE_BUSY here, while ordinary contention
// between opens (measured: tens of ms, under 1.1 s on a loaded 2-core machine) passes.
const BUSY_TIMEOUT_MS = 5_000;

type Outcome = { ok: boolean; id?: string; error?: string };

function startWorker(path: string): { ready: Promise<void>; go(): void; outcome: Promise<Outcome> } {
  const child = spawn(process.execPath, [worker, path, String(BUSY_TIMEOUT_MS)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`worker ended early: ${stderr}`);
    return value;
  };
  const ready = next().then((line) => expect(line).toBe('ready'));
  return { ready, go: () => child.stdin.write('go\n'), outcome: ready.then(next).then((line) => JSON.parse(line) as Outcome) };
}

describe('openSqliteStore on a fresh file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-fresh-open-'));
    await build({
      entryPoints: [join(here, 'fixtures', 'fresh-open-worker.ts')],
      outfile: worker,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
    });
  });
  afterAll(() => {
    rmSync(worker, { force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it(`lets ${PROCESSES} processes create, switch to WAL and write the same new file at once, none waiting out the busy timeout`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const path = join(dir, `round-${round}`, 'mcpx.sqlite');
      const workers = Array.from({ length: PROCESSES }, () => startWorker(path));
      await Promise.all(workers.map((w) => w.ready));
      // Every driver is loaded before any opens, so the opens (CREATE TABLE, journal_mode=WAL, triggers) overlap.
      for (const w of workers) w.go();
      const outcomes = await Promise.all(workers.map((w) => w.outcome));
      expect(outcomes, `round ${round}`).toEqual(Array.from({ length: PROCESSES }, () => ({ ok: true, id: expect.any(String) })));

      const store = await openSqliteStore(path);
      const query = (store.keyv.store as { query: (sql: string) => Promise<Array<Record<string, unknown>>> }).query;
      expect(await query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      const broker = createBroker({ store, allowAnySession: true });
      const pending = await broker.pending({ server: 'fresh' });
      expect(pending.map((p) => p.id).sort()).toEqual(outcomes.map((o) => o.id).sort());
      await broker.close();
      await store.close();
    }
  }, 120_000);

  it('switches a file to WAL while another connection holds its write lock, waiting instead of failing', async () => {
    // The state an open meets when another process is creating the table on the same new file: a rollback
    // journal and a write lock held. Switching to WAL then upgrades a read to a write, which SQLite refuses
    // at once (SQLITE_BUSY) rather than through the busy handler.
    const path = join(dir, 'held', 'mcpx.sqlite');
    mkdirSync(dirname(path), { recursive: true });
    const sqlite3 = createRequire(import.meta.resolve('@keyv/sqlite'))('sqlite3') as typeof import('sqlite3');
    const holder = await new Promise<Database>((resolve, reject) => {
      const db: Database = new sqlite3.Database(path, (error) => (error ? reject(error) : resolve(db)));
    });
    const run = (sql: string): Promise<void> =>
      new Promise<void>((resolve, reject) => holder.run(sql, (error) => (error ? reject(error) : resolve())));
    await run('CREATE TABLE keyv(key VARCHAR(255) PRIMARY KEY, value TEXT )');
    await run('BEGIN IMMEDIATE');
    // The other process's write takes a while (it was descheduled): well inside the busy timeout.
    const released = new Promise<void>((resolve) => setTimeout(resolve, 300)).then(() => run('COMMIT'));
    try {
      const store = await openSqliteStore(path, { busyTimeoutMs: BUSY_TIMEOUT_MS });
      const query = (store.keyv.store as { query: (sql: string) => Promise<Array<Record<string, unknown>>> }).query;
      expect(await query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      await store.close();
    } finally {
      await released;
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });
});
