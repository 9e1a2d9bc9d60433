/**
 * Broker figures on memory, SQLite, a real redis-server and a real Postgres (a cluster made by initdb): open →
 * await → respond cycles per second, answer-to-wake latency in the same process and in another one (p50, p99),
 * and `pending()` over 100,000 questions. Targets from the broker issues ride along with each figure.
 * MCPX_BENCH_STORES=sqlite,postgres runs only those stores.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import {
  createBroker,
  openMemoryStore,
  openPostgresStore,
  openRedisStore,
  openSqliteStore,
  type BrokerStore,
  type ElicitRequest,
  type OpenRequestInput,
  type StoredAnswer,
  type StoreBroker,
} from '../src/broker/index.js';
import { rawKey } from '../src/broker/stores/rows.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { startRedis } from '../test/helpers/redis.js';
import type { BenchFigure, BenchSuite } from './index.js';
import { allCpus, place, serverCpu } from './server-cpu.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The one question every broker cycle opens (the trips bench counts the same cycle). */
export const ask: OpenRequestInput = {
  trace: 'cal-0000000000000b01',
  server: 'bench',
  tool: 'ask',
  mode: 'form',
  message: 'Proceed?',
  era: 'legacy',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
};
const CYCLES = { memory: 20_000, sqlite: 3_000, redis: 5_000, postgres: 3_000 } as const;
const WARMUP_CYCLES = 2_000;
const BLOCKS = 5;
const CYCLE_TARGET = {
  memory: '≥ 20,000 cycles/s',
  sqlite: '≥ 2,000 cycles/s',
  redis: '≥ 5,000 cycles/s',
  postgres: '≥ 2,000 cycles/s',
} as const;
const WAKE_TARGET = { memory: undefined, sqlite: 'p50 < 20 ms', redis: 'p50 < 2 ms', postgres: 'p50 < 5 ms' } as const;
type Kind = keyof typeof CYCLES;

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function cycle(broker: StoreBroker): Promise<void> {
  const { id } = await broker.openRequest(ask);
  const woke = broker.awaitAnswer(id);
  await broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
  await woke;
}

async function cyclesPerSecond(broker: StoreBroker, count: number, concurrency: number): Promise<number> {
  let started = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < count) {
        started++;
        await cycle(broker);
      }
    }),
  );
  return count / ((performance.now() - start) / 1000);
}

/** One at a time, in blocks: a pause of the machine's own (another VM, a vCPU waking) spoils one block, not the figure. */
async function medianRate(broker: StoreBroker, count: number): Promise<number> {
  const rates: number[] = [];
  for (let i = 0; i < BLOCKS; i++) rates.push(await cyclesPerSecond(broker, Math.round(count / BLOCKS), 1));
  return rates.sort((a, b) => a - b)[Math.floor(BLOCKS / 2)]!;
}

async function wakeInProcess(broker: StoreBroker, samples: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const { id } = await broker.openRequest(ask);
    const woke = broker.awaitAnswer(id).then(() => performance.now());
    await sleep(0);
    const start = performance.now();
    void broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
    latencies.push((await woke) - start);
  }
  return latencies.sort((a, b) => a - b);
}

/** What one store round trip costs on this machine right now: the unit a cycle is made of. */
async function roundTrip(store: BrokerStore): Promise<number> {
  const send =
    store.kind === 'sqlite' || store.kind === 'postgres'
      ? () => (store.keyv.store as unknown as { query: (sql: string) => Promise<unknown> }).query('SELECT 1')
      : async () =>
          (
            await (
              store.keyv.store as unknown as { getClient(): Promise<{ sendCommand(args: string[]): Promise<unknown> }> }
            ).getClient()
          ).sendCommand(['PING']);
  for (let i = 0; i < 100; i++) await send();
  const start = performance.now();
  for (let i = 0; i < 2_000; i++) await send();
  return ((performance.now() - start) / 2_000) * 1_000;
}

/** The waiter runs in a child process; latency is from our respond call to its `woke` line arriving here. */
async function wakeAcrossProcesses(
  kind: 'sqlite' | 'redis' | 'postgres',
  location: string,
  broker: StoreBroker,
  waiter: string,
  samples: number,
): Promise<number[]> {
  const child = spawn(process.execPath, [waiter, kind, location], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the waiter process ended');
    return value;
  };
  const latencies: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const { id } = await broker.openRequest(ask);
      child.stdin.write(`${id}\n`);
      if ((await next()) !== `waiting ${id}`) throw new Error('waiter out of step');
      // Let the waiter settle into its wait, at a random phase of any poll it runs.
      await sleep(5 + Math.random() * 10);
      const start = performance.now();
      void broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
      if ((await next()) !== `woke ${id}`) throw new Error('waiter out of step');
      latencies.push(performance.now() - start);
    }
  } finally {
    child.stdin.end();
    child.kill();
  }
  return latencies.sort((a, b) => a - b);
}

/**
 * Fills the store with `total` questions of which `pending` are unanswered, straight through the store (the
 * broker's own checks are not what is measured here); SQLite in one transaction of multi-row inserts.
 */
async function seed(store: BrokerStore, total: number, pending: number): Promise<void> {
  const now = Date.now();
  const ttlMs = 3_600_000;
  const rows: Array<{ request: ElicitRequest; answer?: StoredAnswer }> = [];
  for (let n = 0; n < total; n++) {
    const id = `elc-${n.toString(16).padStart(16, '0')}`;
    const request: ElicitRequest = {
      ...ask,
      id,
      session: 'bench',
      sessionSource: 'explicit',
      createdAt: now,
      expiresAt: now + ttlMs,
      state: 'pending',
    } as ElicitRequest;
    rows.push(
      n < pending
        ? { request }
        : { request, answer: { id, action: 'accept', content: { ok: true }, by: 'api', at: now, pid: process.pid } },
    );
  }
  if (store.kind === 'sqlite') {
    const query = (store.keyv.store as unknown as { query: (sql: string, ...params: unknown[]) => Promise<unknown> }).query;
    const row = (value: unknown): string => JSON.stringify({ value, expires: now + ttlMs * 2 });
    await query('BEGIN');
    for (let n = 0; n < rows.length; n += 500) {
      const batch = rows.slice(n, n + 500);
      const values: string[] = [];
      for (const { request, answer } of batch) {
        values.push(`mcpx:q:${request.id}`, row(request));
        if (answer) values.push(`mcpx:a:${answer.id}`, row(answer));
      }
      await query(
        `INSERT INTO keyv (key, value) VALUES ${Array.from({ length: values.length / 2 }, () => '(?, ?)').join(', ')}`,
        ...values,
      );
    }
    await query('COMMIT');
    return;
  }
  if (store.kind === 'postgres') {
    const query = (store.keyv.store as unknown as { query: (sql: string, params?: unknown[]) => Promise<unknown> }).query;
    const row = (value: unknown): string => JSON.stringify({ value, expires: now + ttlMs * 2 });
    const namespace = store.keyv.namespace ?? '';
    for (let n = 0; n < rows.length; n += 10_000) {
      const batch = rows.slice(n, n + 10_000);
      const keys: string[] = [];
      const values: string[] = [];
      for (const { request, answer } of batch) {
        keys.push(rawKey(store.keyv, `q:${request.id}`));
        values.push(row(request));
        if (answer) {
          keys.push(rawKey(store.keyv, `a:${answer.id}`));
          values.push(row(answer));
        }
      }
      await query('INSERT INTO keyv (key, value) SELECT * FROM unnest($1::text[], $2::text[])', [keys, values]);
      const open = batch.filter((r) => !r.answer).map((r) => r.request);
      await query(
        'INSERT INTO keyv_mcpx_pending (namespace, id, created_at, expires, value) SELECT $1, id, $2, $3, value FROM unnest($4::text[], $5::text[]) AS u(id, value)',
        [namespace, now, now + ttlMs * 2, open.map((r) => r.id), open.map((r) => JSON.stringify(r))],
      );
    }
    return;
  }
  for (let n = 0; n < rows.length; n += 500) {
    await Promise.all(
      rows.slice(n, n + 500).map(async ({ request, answer }) => {
        const event = { kind: 'elicit.open' as const, at: now, pid: process.pid, elicit: request.id };
        await store.putQuestion(request, ttlMs * 2, event);
        if (answer) await store.claimAnswer(answer, ttlMs * 2, { ...event, kind: 'elicit.answered' });
      }),
    );
  }
}

async function timePending(broker: StoreBroker, expected: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    const listed = await broker.pending();
    times.push(performance.now() - start);
    if (listed.length !== expected) throw new Error(`pending() listed ${listed.length}, expected ${expected}`);
  }
  return times.sort((a, b) => a - b)[1]!;
}

/**
 * MCPX_BENCH_BROKER_BASELINE=<dir>: the broker of another checkout (`git archive <commit> src | tar -x -C <dir>`,
 * the dir inside this one so it finds node_modules) against this one, one at a time, in interleaved rounds on the
 * same servers: before and after from one run, which a loaded machine cannot skew one way. Only this is run.
 * MCPX_BENCH_BROKER_ROUNDS (5) sets the rounds: more of them narrow the noise of a loaded machine.
 */
async function baselineRun(baseline: string, kinds: Kind[]): Promise<BenchFigure[]> {
  type BrokerModule = typeof import('../src/broker/index.js');
  const before = (await import(join(baseline, 'src', 'broker', 'index.ts'))) as BrokerModule;
  const after = (await import('../src/broker/index.js')) as BrokerModule;
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-baseline-'));
  const redis = await startRedis();
  const postgres = await startPostgres();
  // A database each, so each side's tables (and indexes) are its own.
  const pg = (await import('pg')).default;
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  for (const tag of ['before', 'after']) await admin.query(`CREATE DATABASE ${tag}`);
  await admin.end();
  const databaseUrl = (tag: string): string => postgres.url.replace(/\/postgres$/, `/${tag}`);
  const figures: BenchFigure[] = [];
  const rounds = Number(process.env.MCPX_BENCH_BROKER_ROUNDS ?? 5);
  try {
    for (const kind of kinds) {
      const count = Math.round(CYCLES[kind] / 5);
      const port = kind === 'redis' ? redis.port : kind === 'postgres' ? postgres.port : undefined;
      const open = (m: BrokerModule, tag: string): Promise<BrokerStore | undefined> =>
        kind === 'memory'
          ? Promise.resolve(undefined)
          : kind === 'sqlite'
            ? m.openSqliteStore(join(dir, `${tag}.sqlite`))
            : kind === 'redis'
              ? m.openRedisStore(redis.url, { namespace: tag })
              : m.openPostgresStore(databaseUrl(tag), { namespace: tag });
      const pairs = await Promise.all(
        ([before, after] as const).map(async (m, i) => {
          const store = await open(m, i ? 'after' : 'before');
          return {
            store,
            broker: m.createBroker({ ...(store ? { store } : {}), allowAnySession: true }) as unknown as StoreBroker,
            rates: [] as number[],
            /** CPU per cycle (µs), each round: this process (all its threads), and the server's processes. */
            cpu: [] as number[],
            server: [] as number[],
          };
        }),
      );
      for (const pair of pairs) for (let i = 0; i < 100; i++) await cycle(pair.broker);
      // Each round alternates which goes first, so neither always runs right after the other's writes.
      for (let r = 0; r < rounds; r++)
        for (const pair of r % 2 ? [...pairs].reverse() : pairs) {
          const used = process.cpuUsage();
          const server = serverCpu(port);
          pair.rates.push(await cyclesPerSecond(pair.broker, count, 1));
          const { user, system } = process.cpuUsage(used);
          pair.cpu.push((user + system) / count);
          pair.server.push((serverCpu(port) - server) / count);
        }
      pairs.forEach((pair, i) => {
        figures.push({
          suite: 'broker',
          name: `${kind}: open/await/respond one at a time, ${i ? 'this checkout' : 'baseline'} (median of ${rounds} interleaved rounds)`,
          value: [...pair.rates].sort((a, b) => a - b)[Math.floor(rounds / 2)]!,
          unit: 'cycles/s',
          target: CYCLE_TARGET[kind],
        });
        const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
        const side = i ? 'this checkout' : 'baseline';
        figures.push({
          suite: 'broker',
          name: `${kind}: CPU per cycle, this process, ${side}`,
          value: median(pair.cpu),
          unit: 'µs',
        });
        if (port !== undefined)
          figures.push({
            suite: 'broker',
            name: `${kind}: CPU per cycle, the server, ${side}`,
            value: median(pair.server),
            unit: 'µs',
          });
      });
      // Each round's own ratio: both sides of a round ran within a second of each other, so load drifting between
      // rounds cancels out of it.
      const [base, mine] = pairs.map((pair) => pair.rates) as [number[], number[]];
      const ratios = mine.map((rate, r) => rate / base[r]!).sort((a, b) => a - b);
      figures.push({
        suite: 'broker',
        name: `${kind}: this checkout / baseline, per round (median of ${rounds})`,
        value: ratios[Math.floor(rounds / 2)]!,
        unit: '×',
      });
      for (const pair of pairs) {
        await pair.broker.close();
        await pair.store?.close();
      }
    }
  } finally {
    await redis.stop();
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

export const run: BenchSuite = async () => {
  const baseline = process.env.MCPX_BENCH_BROKER_BASELINE;
  const only = process.env.MCPX_BENCH_STORES?.split(',').map((k) => k.trim());
  if (baseline)
    return baselineRun(
      baseline,
      (['memory', 'sqlite', 'redis', 'postgres'] as Kind[]).filter((k) => !only || only.includes(k)),
    );
  const figures: BenchFigure[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-broker-'));
  const waiter = join(here, '..', 'node_modules', '.cache', 'mcpx-bench', `broker-waiter-${process.pid}.mjs`);
  await build({
    entryPoints: [join(here, 'broker-waiter.ts')],
    outfile: waiter,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  const kinds = (['memory', 'sqlite', 'redis', 'postgres'] as Kind[]).filter((k) => !only || only.includes(k));
  const redis = await startRedis();
  const postgres = await startPostgres();
  const add = (name: string, value: number, unit: string, target?: string, note?: string): void => {
    figures.push({ suite: 'broker', name, value, unit, ...(target ? { target } : {}), ...(note ? { note } : {}) });
  };
  try {
    for (const kind of kinds) {
      const location = kind === 'sqlite' ? join(dir, 'bench.sqlite') : kind === 'postgres' ? postgres.url : redis.url;
      const open = async (): Promise<BrokerStore | undefined> =>
        kind === 'memory'
          ? undefined
          : kind === 'sqlite'
            ? openSqliteStore(location)
            : kind === 'postgres'
              ? openPostgresStore(location)
              : openRedisStore(location);
      const store = await open();
      const broker = createBroker({ ...(store ? { store } : {}), allowAnySession: true });
      // Until V8 has optimised the cycle's code: a fresh process's first ~2,000 cycles cost 2-3 times a warm one.
      for (let i = 0; i < WARMUP_CYCLES; i++) await cycle(broker);
      if (store)
        add(
          `${kind}: one store round trip (calibration: ${kind === 'redis' ? 'PING' : 'SELECT 1'})`,
          await roundTrip(store),
          'µs',
          undefined,
          'a cycle is two of these (open: one write; respond: one claim); read the cycles against it',
        );
      add(
        `${kind}: open/await/respond cycles, one at a time (median of ${BLOCKS} blocks)`,
        await medianRate(broker, CYCLES[kind]),
        'cycles/s',
        CYCLE_TARGET[kind],
      );
      add(
        `${kind}: open/await/respond cycles, 32 in flight`,
        await cyclesPerSecond(broker, CYCLES[kind], 32),
        'cycles/s',
        CYCLE_TARGET[kind],
      );
      const port = kind === 'redis' ? redis.port : kind === 'postgres' ? postgres.port : undefined;
      // The same cycle with the placement fixed both ways, each with its own calibration: unpinned, the scheduler
      // picks one or the other from run to run, and the figure above follows it.
      if (store && port !== undefined)
        for (const [where, server] of [
          ['on this process’s vCPU', '0'],
          ['on the other vCPU', '1'],
        ] as const) {
          if (!place(port, '0', server)) break;
          for (let i = 0; i < 200; i++) await cycle(broker);
          add(`${kind}: one at a time, server ${where} (taskset): round trip`, await roundTrip(store), 'µs');
          add(
            `${kind}: one at a time, server ${where} (taskset)`,
            await medianRate(broker, CYCLES[kind]),
            'cycles/s',
            CYCLE_TARGET[kind],
          );
        }
      if (port !== undefined) place(port, allCpus(), allCpus());
      const local = await wakeInProcess(broker, 500);
      add(`${kind}: answer-to-wake in process, p50`, percentile(local, 50), 'ms');
      add(`${kind}: answer-to-wake in process, p99`, percentile(local, 99), 'ms');
      if (kind !== 'memory') {
        const remote = await wakeAcrossProcesses(kind, location, broker, waiter, 200);
        add(
          `${kind}: answer-to-wake in another process, p50`,
          percentile(remote, 50),
          'ms',
          WAKE_TARGET[kind],
          'respond call → woke line',
        );
        add(`${kind}: answer-to-wake in another process, p99`, percentile(remote, 99), 'ms');
      }
      await broker.close();
      await store?.close();
      // Fresh stores for the listings, so each holds exactly the 100,000 questions it is about.
      for (const [pending, label, target] of [
        [1_000, 'pending() with 100,000 questions stored, 1,000 of them pending', '< 200 ms'],
        [100_000, 'pending() listing 100,000 pending questions', undefined],
      ] as const) {
        const listStore =
          kind === 'memory'
            ? openMemoryStore()
            : kind === 'sqlite'
              ? await openSqliteStore(join(dir, `pending-${pending}.sqlite`))
              : kind === 'postgres'
                ? await openPostgresStore(postgres.url, { namespace: `mcpx-bench-${pending}` })
                : await openRedisStore(redis.url, { namespace: `mcpx-bench-${pending}` });
        await seed(listStore, 100_000, pending);
        const lister = createBroker({ store: listStore, allowAnySession: true });
        add(`${kind}: ${label} (median of 3)`, await timePending(lister, pending), 'ms', target);
        await lister.close();
        await listStore.close();
      }
    }
  } finally {
    await redis.stop();
    await postgres.stop();
    rmSync(waiter, { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
};
