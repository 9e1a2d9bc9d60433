import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroker, openRedisStore, openSqliteStore, type BrokerStore } from '../../src/broker/index.js';
import { isMcpxError } from '../../src/errors.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

const here = dirname(fileURLToPath(import.meta.url));
// Bundled once per run so eight workers start in a blink instead of each compiling TypeScript through tsx;
// written under node_modules so its package imports resolve.
const worker = join(here, '..', '..', 'node_modules', '.cache', 'mcpx-broker-tests', `broker-worker-${process.pid}.mjs`);
const PROCESSES = 8;
const QUESTIONS = 1_000;

function spawnWorker(args: string[]): { child: ChildProcess; lines: AsyncIterableIterator<string>; stderr: () => string } {
  const child = spawn(process.execPath, [worker, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return { child, lines, stderr: () => stderr };
}

async function nextLine(w: ReturnType<typeof spawnWorker>): Promise<string> {
  const { value, done } = await w.lines.next();
  if (done) throw new Error(`worker ended early: ${w.stderr()}`);
  return value;
}

const ask = (n: number) => ({
  trace: `cal-${n.toString(16).padStart(16, '0')}`,
  server: 'race',
  tool: 'ask',
  mode: 'form' as const,
  message: `question ${n}`,
  era: 'legacy' as const,
  requestedSchema: { type: 'object' as const, properties: { worker: { type: 'integer' as const } }, required: ['worker'] },
});

describe('broker across processes', () => {
  let dir: string;
  let redis: RedisServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-processes-'));
    await build({
      entryPoints: [join(here, 'fixtures', 'broker-worker.ts')],
      outfile: worker,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
    });
    redis = await startRedis();
  });
  afterAll(async () => {
    rmSync(worker, { force: true });
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const stores: Array<[string, 'sqlite' | 'redis', () => string]> = [
    ['one SQLite file', 'sqlite', () => join(dir, 'race.sqlite')],
    ['a real redis-server', 'redis', () => redis.url],
  ];

  for (const [label, kind, location] of stores) {
    it(`lets exactly one of ${PROCESSES} processes win each of ${QUESTIONS} questions on ${label}`, async () => {
      const store: BrokerStore = kind === 'redis' ? await openRedisStore(location()) : await openSqliteStore(location());
      const broker = createBroker({ store, allowAnySession: true });
      const ids: string[] = [];
      for (let n = 0; n < QUESTIONS; n += 50)
        ids.push(...(await Promise.all(Array.from({ length: 50 }, (_, i) => broker.openRequest(ask(n + i))))).map((r) => r.id));
      const idsFile = join(dir, `${kind}-ids.json`);
      writeFileSync(idsFile, JSON.stringify(ids));

      const workers = Array.from({ length: PROCESSES }, (_, i) => spawnWorker(['race', kind, location(), `${idsFile}:${i}`]));
      for (const w of workers) expect(await nextLine(w)).toBe('ready');
      for (const w of workers) w.child.stdin!.write('go\n');
      const reports = await Promise.all(
        workers.map(
          async (w) =>
            JSON.parse(await nextLine(w)) as {
              worker: number;
              pid: number;
              outcomes: Record<string, string>;
              claimsLost: number;
            },
        ),
      );
      // Some losers got as far as the atomic step itself, not just the early read of an existing answer.
      expect(reports.reduce((sum, r) => sum + r.claimsLost, 0)).toBeGreaterThan(0);

      const stored = await Promise.all(ids.map((id) => broker.lookup(id)));
      ids.forEach((id, i) => {
        const outcomes = reports.map((r) => r.outcomes[id]);
        const winners = reports.filter((r) => r.outcomes[id] === 'won');
        expect(winners, `winners of ${id}`).toHaveLength(1);
        expect(
          outcomes.filter((o) => o === 'ELICITATION_ALREADY_ANSWERED'),
          `losers of ${id}`,
        ).toHaveLength(PROCESSES - 1);
        // Nothing lost: the stored answer is the winner's.
        expect(stored[i]).toMatchObject({ action: 'accept', content: { worker: winners[0]!.worker }, pid: winners[0]!.pid });
      });
      const idSet = new Set(ids);
      const answered = (await broker.audit()).filter((e) => e.kind === 'elicit.answered' && idSet.has(e.elicit!));
      expect(answered).toHaveLength(QUESTIONS);
      expect(await broker.pending({ server: 'race' })).toEqual([]);
      await broker.close();
      await store.close();
    }, 120_000);
  }

  for (const [label, kind, location] of stores) {
    it(`keeps the questions of a process killed with SIGKILL on ${label}, for another process to answer`, async () => {
      const crashy = spawnWorker(['open', kind, kind === 'sqlite' ? join(dir, 'crash.sqlite') : location(), '60000']);
      const acknowledged: string[] = [];
      while (acknowledged.length < 30) acknowledged.push(await nextLine(crashy));
      const exited = new Promise((resolve) => crashy.child.once('exit', resolve));
      crashy.child.kill('SIGKILL');
      await exited;

      const store: BrokerStore =
        kind === 'redis' ? await openRedisStore(location()) : await openSqliteStore(join(dir, 'crash.sqlite'));
      const broker = createBroker({ store, session: 'crash-test' });
      const listed = await broker.pending({ server: 'crashy' });
      const listedIds = new Set(listed.map((p) => p.id));
      // Every question the dead process reported as opened is there, pending, with time left.
      for (const id of acknowledged) expect(listedIds.has(id), `${id} listed`).toBe(true);
      expect(listed.every((p) => p.state === 'pending' && p.timeLeftMs > 0 && p.session === 'crash-test')).toBe(true);
      const opens = (await broker.audit({ session: 'crash-test' })).filter(
        (e) => e.kind === 'elicit.open' && acknowledged.includes(e.elicit!),
      );
      expect(opens).toHaveLength(acknowledged.length);
      expect(opens.every((e) => e.pid === crashy.child.pid)).toBe(true);

      const [accepted, declined, gone] = acknowledged;
      await broker.respond({ id: accepted!, action: 'accept', content: { ok: true }, by: 'cli' });
      await broker.respond({ id: declined!, action: 'decline', by: 'cli' });
      await broker.abandon(gone!, `process ${crashy.child.pid} was killed`);
      const late = await broker.respond({ id: gone!, action: 'accept', content: {}, by: 'cli' }).catch((e: unknown) => e);
      expect(isMcpxError(late, 'ELICITATION_ABANDONED')).toBe(true);

      expect((await broker.get(accepted!))?.state).toBe('answered');
      expect(await broker.lookup(accepted!)).toMatchObject({
        action: 'accept',
        content: { ok: true },
        by: 'cli',
        pid: process.pid,
      });
      expect((await broker.get(declined!))?.state).toBe('answered');
      expect((await broker.lookup(declined!))?.action).toBe('decline');
      expect((await broker.get(gone!))?.state).toBe('abandoned');
      const stillPending = new Set((await broker.pending({ server: 'crashy' })).map((p) => p.id));
      expect(stillPending.has(accepted!) || stillPending.has(declined!) || stillPending.has(gone!)).toBe(false);
      expect(stillPending.has(acknowledged[3]!)).toBe(true);
      await broker.close();
      await store.close();
    }, 60_000);
  }
});
