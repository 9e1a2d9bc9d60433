/**
 * Counts what one open → await → respond cycle costs each store, at the driver: for Redis and Postgres the round
 * trips on every socket (a write after the last read starts one; pipelined writes are one), and the pushes a
 * socket received unasked (pub/sub, NOTIFY); for SQLite the statements run (each is a hop to sqlite3's thread
 * pool). `npm run bench -- trips`; MCPX_BENCH_STORES=redis,postgres runs only those stores.
 */
import { Session } from 'node:inspector/promises';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBroker, openPostgresStore, openRedisStore, openSqliteStore, type StoreBroker } from '../src/broker/index.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { startRedis } from '../test/helpers/redis.js';
import { tripCounter } from '../test/helpers/store-trips.js';
import type { BenchFigure, BenchSuite } from './index.js';
import { ask } from './broker.js';
import { serverCpu } from './server-cpu.js';

const CYCLES = Number(process.env.MCPX_BENCH_TRIPS_CYCLES ?? 500);

const counter = tripCounter();
/** µs over the counted cycles. */
const cpu = new Map<string, number>();

/** CPU (µs) of this process's threads by name: the main thread, libuv's pool, V8's helpers. */
function threadCpu(): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const [comm, rest] = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ') as [string, string];
      const fields = rest.split(' ');
      const name = tid === String(process.pid) ? 'main' : comm.slice(comm.indexOf('(') + 1).replace(/\d+$/, '');
      byName.set(name, (byName.get(name) ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100);
    } catch {
      // gone meanwhile
    }
  }
  return byName;
}

async function measure(
  broker: StoreBroker,
  kind: string,
  port?: number,
): Promise<{ trips: Map<string, number>; cpu: Map<string, number> }> {
  for (let i = 0; i < 50; i++) await cycleOnce(broker);
  counter.counts.clear();
  counter.sqliteCallMicros = 0;
  cpu.clear();
  // MCPX_BENCH_TRIPS_PROFILE=<dir>: a CPU profile of the counted cycles only, per store.
  const profileDir = process.env.MCPX_BENCH_TRIPS_PROFILE;
  const session = profileDir ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const server = serverCpu(port);
  const threads0 = threadCpu();
  const used0 = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < CYCLES; i++) await cycleOnce(broker);
  const wall = performance.now() - start;
  const used = process.cpuUsage(used0);
  counter.phase = undefined;
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(profileDir!, `${kind}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
  cpu.set('wall time', wall * 1000);
  if (kind === 'sqlite') cpu.set('main thread inside sqlite3 calls', counter.sqliteCallMicros);
  for (const [name, us] of threadCpu())
    if (us - (threads0.get(name) ?? 0) > 0) cpu.set(`thread ${name}, CPU`, us - (threads0.get(name) ?? 0));
  cpu.set('this process, CPU (user + system)', used.user + used.system);
  cpu.set('this process, system CPU', used.system);
  if (port !== undefined) cpu.set('the server, CPU (all its processes)', serverCpu(port) - server);
  // Pushes that arrive after the last cycle (a notification in flight) are not counted.
  return { trips: new Map(counter.counts), cpu: new Map(cpu) };
}

/** One cycle, each store call counted in its phase (warm-up cycles too, cleared after). */
async function cycleOnce(broker: StoreBroker): Promise<void> {
  counter.phase = 'open';
  const { id } = await broker.openRequest(ask);
  counter.phase = 'await';
  const woke = broker.awaitAnswer(id);
  counter.phase = 'respond';
  await broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
  counter.phase = 'await';
  await woke;
  counter.phase = 'between';
}

export const run: BenchSuite = async () => {
  const only = process.env.MCPX_BENCH_STORES?.split(',').map((k) => k.trim());
  const kinds = (['sqlite', 'redis', 'postgres'] as const).filter((k) => !only || only.includes(k));
  const redis = await startRedis();
  const postgres = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-trips-'));
  counter.label = (socket) =>
    socket.remotePort === redis.port ? 'redis' : socket.remotePort === postgres.port ? 'postgres' : undefined;
  const figures: BenchFigure[] = [];
  try {
    for (const kind of kinds) {
      const store =
        kind === 'sqlite'
          ? await openSqliteStore(join(dir, 'trips.sqlite'))
          : kind === 'redis'
            ? await openRedisStore(redis.url)
            : await openPostgresStore(postgres.url);
      const broker = createBroker({ store, allowAnySession: true });
      const counted = await measure(
        broker,
        kind,
        kind === 'redis' ? redis.port : kind === 'postgres' ? postgres.port : undefined,
      );
      for (const [what, n] of [...counted.trips].sort())
        figures.push({
          suite: 'trips',
          name: `${kind}: ${what}s per cycle, in ${what.split(' ')[0]}`,
          value: n / CYCLES,
          unit: '',
        });
      const total = [...counted.trips]
        .filter(([k]) => !k.endsWith('push') && !k.startsWith('between'))
        .reduce((sum, [, n]) => sum + n, 0);
      figures.push({ suite: 'trips', name: `${kind}: store trips per cycle, all phases`, value: total / CYCLES, unit: '' });
      for (const [what, us] of counted.cpu)
        figures.push({ suite: 'trips', name: `${kind}: ${what} per cycle`, value: us / CYCLES, unit: 'µs' });
      await broker.close();
      await store.close();
    }
  } finally {
    await redis.stop();
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
};
