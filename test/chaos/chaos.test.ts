/**
 * Chaos: 3 daemons (real processes of the built CLI, each its own host) on one store, 8 client processes asking
 * questions of both eras through whichever daemon is up, while daemons are killed with SIGKILL and restarted at
 * random (sometimes at once: the restarted daemon recovers its own calls; sometimes after their lease lapsed: a
 * survivor takes them over). On Redis and on Postgres, started here.
 *
 * What must hold whatever the schedule: no accepted answer is lost (every call that completed received exactly
 * the answer given; a call that did not says ELICITATION_ABANDONED), none is answered twice (the audit log has at
 * most one answer per question), every modern call completes, every legacy call completes or is abandoned, and an
 * answer refused as abandoned was never recorded. And the chaos happened: at least one daemon was seen gone after
 * its SIGKILL, and a survivor's log says it took over and resumed calls: the first victim is chosen among the daemons
 * holding modern rounds (read in the store) and stays down until a survivor took it over. The seed (MCPX_CHAOS_SEED, printed) fixes the questions' eras
 * and the kill schedule; MCPX_CHAOS_QUESTIONS sets how many (`npm run chaos`: 1,000).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoreUrl } from '../../src/broker/store-url.js';
import { fleetDaemon, type FleetDaemon } from '../helpers/daemon-fleet.js';
import { startHttpFixture, type HttpFixture } from '../helpers/fixture-servers.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { processAlive as alive } from '../../src/local/process-alive.js';
import { isModernRound } from '../../src/tasks/handoff.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import { until } from '../helpers/daemon-fleet.js';

// `npm test` asks 200 (CI time on 2 cores); `npm run chaos` asks 1,000.
const QUESTIONS = Number(process.env.MCPX_CHAOS_QUESTIONS || 200);
const SEED = Number(process.env.MCPX_CHAOS_SEED || Math.floor(Math.random() * 2 ** 31));
const CLIENTS = 8;
const DAEMONS = 3;
const LEASE_MS = 2000;

/** mulberry32 */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Line {
  question: string;
  task: string;
  era: 'modern' | 'legacy';
  repo: string;
  answer: 'accepted' | 'refused';
  refusal?: { status: number; code?: string };
  state: 'complete' | 'failed';
  error?: string;
  received?: { action: string; content?: { repo?: string } };
  /** From asking to the call's end. */
  ms: number;
}

function runClient(index: number, sockets: string[], questions: number): Promise<Line[]> {
  const options = {
    sockets,
    seed: SEED,
    client: index,
    questions,
    concurrency: 3,
    legacyShare: 0.5,
    lateShare: 0.15,
    lateMs: LEASE_MS * 3,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, 'chaos-client.mjs'), JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => {
      const lines = out.split('\n').filter(Boolean);
      if (code !== 0 || lines.at(-1) !== 'done') return reject(new Error(`client ${index} exited ${code}: ${err}`));
      resolve(lines.slice(0, -1).map((l) => JSON.parse(l) as Line));
    });
  });
}

let redis: RedisServer;
let postgres: PostgresServer;
let modern: HttpFixture;
let legacy: HttpFixture;
beforeAll(async () => {
  // Upstream servers every host reaches over HTTP; the v1 one links each question to its call's stream.
  [redis, postgres, modern, legacy] = await Promise.all([
    startRedis(),
    startPostgres(),
    startHttpFixture('dual-era'),
    startHttpFixture('legacy-v1', { MCPX_FIXTURE_LINK: 'stream' }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([redis?.stop(), postgres?.stop(), modern?.close(), legacy?.close()]);
});

for (const [name, url] of [
  ['Redis', () => redis.url],
  ['Postgres', () => postgres.url],
] as const) {
  describe(`chaos on ${name}`, () => {
    it(`loses no answer across ${QUESTIONS} questions while daemons are killed and restarted`, async () => {
      console.log(`chaos on ${name}: seed ${SEED} (MCPX_CHAOS_SEED=${SEED} repeats it), ${QUESTIONS} questions`);
      const random = prng(SEED);
      // Every host's daemon serves the same session, so a question raised through one is answered through another.
      const servers = { modern: { url: modern.url, era: 'modern' }, legacy: { url: legacy.url } };
      const daemons: FleetDaemon[] = Array.from({ length: DAEMONS }, (_, i) =>
        fleetDaemon(`${name}-${i}`, url(), { MCPX_LEASE_MS: String(LEASE_MS), MCPX_SESSION_ID: 'chaos' }, servers),
      );
      await Promise.all(daemons.map((d) => d.start()));
      const sockets = daemons.map((d) => daemonPaths(d.env, d.configPath).socket);
      const holderOf = (d: FleetDaemon): string => daemonPaths(d.env, d.configPath).fingerprint;
      // The store as the daemons share it: which calls a daemon holds that a survivor must resume if it dies.
      const watch = await openStoreUrl(url());
      const tasks = createTaskStore(watch.keyv);
      const resumable = async (d: FleetDaemon): Promise<number> => (await tasks.liveOf(holderOf(d))).filter(isModernRound).length;
      const takeoversOf = (holder: string, since: Map<FleetDaemon, number>): number[] =>
        daemons.flatMap((d) =>
          [
            ...d
              .log()
              .slice(since.get(d) ?? 0)
              .matchAll(new RegExp(`took over ${holder}: (\\d+) call\\(s\\) resumed`, 'g')),
          ].map((m) => Number(m[1])),
        );
      // Counted from what is seen: a daemon's process gone after its SIGKILL; a survivor's log saying it took over.
      let kills = 0;
      let pastLease = 0;
      // The first takeover, made certain: a daemon killed holding modern rounds stays down until a survivor took it over.
      let proof: { victim: string; held: number; resumed: Promise<number[]> } | undefined;
      try {
        const share = (i: number): number => Math.floor(QUESTIONS / CLIENTS) + (i < QUESTIONS % CLIENTS ? 1 : 0);
        let clientsDone = false;
        const clients = Promise.all(Array.from({ length: CLIENTS }, (_, i) => runClient(i, sockets, share(i)))).finally(
          () => (clientsDone = true),
        );
        // The schedule: kill a random live daemon (never the last), restart it at once, after half a lease, or
        // only after its lease lapsed (a survivor takes over), then wait a random while.
        const restarts: Array<Promise<void>> = [];
        const restarting = new Set<FleetDaemon>();
        const restart = (daemon: FleetDaemon, after: () => Promise<unknown>): void => {
          restarting.add(daemon);
          restarts.push(
            (async () => {
              await after();
              await daemon.start();
              restarting.delete(daemon);
            })(),
          );
        };
        const sleep = (ms: number) => () => new Promise((r) => setTimeout(r, ms));
        while (!clientsDone) {
          await Promise.race([clients.catch(() => undefined), new Promise((r) => setTimeout(r, 300 + random() * 1200))]);
          if (clientsDone) break;
          // A daemon that exited on its own (its lease was taken while it stalled) comes back like any other.
          for (const daemon of daemons) if (daemon.pid === undefined && !restarting.has(daemon)) restart(daemon, sleep(0));
          const live = daemons.filter((d) => d.pid !== undefined);
          if (live.length < 2) continue;
          // Until the first takeover is certain, only a daemon holding a call a survivor must resume is a victim.
          const holding = proof ? live : (await Promise.all(live.map(async (d) => ((await resumable(d)) > 0 ? [d] : [])))).flat();
          if (holding.length === 0) continue;
          const victim = holding[Math.floor(random() * holding.length)]!;
          const pid = victim.pid!;
          const logs = new Map(daemons.map((d) => [d, d.log().length]));
          await victim.kill();
          if (!alive(pid)) kills++;
          if (!proof) {
            // Dead now: nobody else writes its calls until a survivor takes them over, so this is what it must resume.
            const held = await resumable(victim);
            if (held > 0) {
              const holder = holderOf(victim);
              const resumed = until(`a survivor taking over ${victim.name} (${held} modern round(s) held)`, async () => {
                const seen = takeoversOf(holder, logs);
                return seen.length > 0 ? seen : undefined;
              });
              proof = { victim: victim.name, held, resumed };
              pastLease++;
              restart(victim, () => resumed);
              continue;
            }
          }
          const delay = [0, LEASE_MS / 2, LEASE_MS * 1.5][Math.floor(random() * 3)]!;
          if (delay > LEASE_MS) pastLease++;
          restart(victim, sleep(delay));
        }
        const lines = (await clients).flat();
        await Promise.all(restarts);
        const exits = daemons.map((d) => d.log().split('exiting').length - 1).reduce((a, b) => a + b, 0);
        const takeovers = daemons.flatMap((d) => [...d.log().matchAll(/took over \S+: (\d+) call\(s\) resumed/g)]);
        const resumed = takeovers.reduce((sum, match) => sum + Number(match[1]), 0);
        console.log(
          `chaos on ${name}: ${kills} kills (${pastLease} left down past their lease), ${takeovers.length} takeovers resuming ${resumed} calls, ${exits} exits on a lease taken while stalled`,
        );
        const first = proof && (await proof.resumed);
        console.log(
          `chaos on ${name}: the first takeover: ${proof?.victim} killed holding ${proof?.held} modern round(s), survivors resumed ${first?.join(' + ')}`,
        );
        // A run with nothing killed or nothing taken over proved nothing.
        expect(proof).toBeDefined();
        expect(kills).toBeGreaterThan(0);
        expect(takeovers.length).toBeGreaterThan(0);
        expect(resumed).toBeGreaterThan(0);

        const events = await watch.readEvents();
        const answers = new Map<string, number>();
        for (const e of events)
          if (e.kind === 'elicit.answered' && e.elicit) answers.set(e.elicit, (answers.get(e.elicit) ?? 0) + 1);

        expect(lines).toHaveLength(QUESTIONS);
        // 0 answered twice, over every question in the log (the retried calls' orphans too).
        expect([...answers].filter(([, n]) => n > 1)).toEqual([]);
        const lost: Line[] = [];
        const tally = { modernComplete: 0, legacyComplete: 0, legacyAbandoned: 0, legacyAcceptedThenAbandoned: 0 };
        for (const line of lines) {
          const recorded = answers.get(line.question) ?? 0;
          if (line.answer === 'refused') {
            // Refused as abandoned: never recorded, and the call says it was abandoned.
            expect(line.refusal?.code, JSON.stringify(line)).toBe('ELICITATION_ABANDONED');
            expect(recorded, JSON.stringify(line)).toBe(0);
            expect([line.era, line.state, line.error]).toEqual(['legacy', 'failed', 'ELICITATION_ABANDONED']);
            tally.legacyAbandoned++;
            continue;
          }
          expect(recorded, JSON.stringify(line)).toBe(1);
          if (line.state === 'complete') {
            // The call received exactly the answer given: nothing lost, nothing invented.
            if (line.received?.action !== 'accept' || line.received.content?.repo !== line.repo) lost.push(line);
            tally[line.era === 'modern' ? 'modernComplete' : 'legacyComplete']++;
          } else if (line.era === 'legacy' && line.error === 'ELICITATION_ABANDONED') {
            // Accepted while its daemon was already dead (before its lease lapsed): the call says so.
            tally.legacyAcceptedThenAbandoned++;
          } else {
            lost.push(line);
          }
        }
        console.log(`chaos on ${name}: ${JSON.stringify(tally)}`);
        const ms = lines.map((l) => l.ms).sort((a, b) => a - b);
        console.log(`chaos on ${name}: question to result p50 ${ms[ms.length >> 1]} ms, max ${ms.at(-1)} ms (not asserted)`);
        expect(lost).toEqual([]);
        expect(tally.modernComplete).toBe(lines.filter((l) => l.era === 'modern').length);
      } catch (error) {
        for (const d of daemons) console.log(`--- ${d.name}\n${d.log()}`);
        // A call a client gave up waiting on: its record as the store has it, and its questions' state.
        for (const id of new Set(String(error).match(/tsk-[0-9a-f]{16}/g) ?? [])) {
          const task = await tasks.get(id);
          const questions = await Promise.all((task?.waitingOn ?? []).map((q) => watch.getEntry(q)));
          console.log(`--- ${id}\n${JSON.stringify({ task, questions })}`);
        }
        throw error;
      } finally {
        await Promise.all(daemons.map((d) => d.stop()));
        await watch.close();
      }
    }, 600_000);
  });
}
