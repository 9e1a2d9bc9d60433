/**
 * A daemon dies (SIGKILL, as a host does) with calls in flight; the daemons left on the same store carry on.
 * Its modern call is adopted by exactly one survivor from the stored continuation, resumes once answered, and its
 * result is there for `mcpx task result`; its legacy call died with its connection, so its question is abandoned
 * and an answer to it is refused (ELICITATION_ABANDONED, exit 1), never accepted. Real daemon processes (the built
 * CLI), real fixture servers, on Redis and on Postgres started here.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { rawKey, tablesOf } from '../../src/broker/index.js';
import { openStoreUrl } from '../../src/broker/store-url.js';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { openLeases } from '../../src/tasks/leases.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import { cli, fleetDaemon, post, until, type FleetDaemon } from '../helpers/daemon-fleet.js';
import { fixtureEcho } from '../helpers/fixture-servers.js';
import { useStoreServers } from '../helpers/store-servers.js';

const servers = useStoreServers();

interface Started {
  inputRequired: { task: string; questions: Array<{ id: string; era: string }> };
}

async function ask(daemon: FleetDaemon, tool: string, title: string): Promise<{ task: string; question: string }> {
  const response = await daemon.fetch(`/v1/call/${tool}`, post({ title }));
  expect(response.status).toBe(202);
  const { inputRequired } = (await response.json()) as Started;
  return { task: inputRequired.task, question: inputRequired.questions[0]!.id };
}

interface TaskView {
  state: string;
  pid: number;
  result?: object;
  error?: { code: string; message: string };
}

async function taskOf(daemon: FleetDaemon, id: string): Promise<TaskView> {
  return ((await (await daemon.fetch(`/v1/tasks/${id}`)).json()) as { task: TaskView }).task;
}

/** The task once `daemon` shows it complete. */
function completed(daemon: FleetDaemon, id: string, what: string): Promise<TaskView> {
  return until(
    what,
    async () => {
      const task = await taskOf(daemon, id);
      return task.state === 'complete' ? task : undefined;
    },
    20_000,
  );
}

for (const [name, url] of [
  ['Redis', () => servers.redis.url],
  ['Postgres', () => servers.postgres.url],
] as const) {
  describe(`a daemon killed on a shared ${name} store`, () => {
    it('takes a lapsed lease in exactly one of many racing survivors', async () => {
      const stores = await Promise.all(Array.from({ length: 6 }, () => openStoreUrl(url())));
      try {
        const leases = stores.map((s) => openLeases(s)!);
        expect(await leases[0]!.acquire('holder:race', 'dead-host:1:x', 60_000)).toBe(true);
        // Held: nobody else takes it, however many try.
        expect((await Promise.all(leases.map((l, i) => l.acquire('holder:race', `s${i}`, 60_000)))).filter(Boolean)).toEqual([]);
        await leases[0]!.lapse('holder:race', 'dead-host:1:x');
        const won = await Promise.all(leases.map((l, i) => l.acquire('holder:race', `s${i}`, 60_000)));
        expect(won.filter(Boolean)).toHaveLength(1);
        const { leases: rows } = await leases[0]!.list();
        const winner = `s${won.indexOf(true)}`;
        expect(rows.find((r) => r.name === 'holder:race')?.owner).toBe(winner);
        // The dead owner cannot renew what was taken; the winner can.
        expect(await leases[0]!.renew('holder:race', 'dead-host:1:x', 60_000)).toBe(false);
        expect(await leases[1]!.renew('holder:race', winner, 60_000)).toBe(true);
        await leases[0]!.remove('holder:race', winner);
        expect((await leases[0]!.list()).leases.find((r) => r.name === 'holder:race')).toBeUndefined();
        // Nor is a dropped lease taken back by a renewal.
        expect(await leases[1]!.renew('holder:race', winner, 60_000)).toBe(false);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it('resumes a call whose first taker died between its claim and its adoption', async () => {
      const env = { MCPX_LEASE_MS: '1000', MCPX_SESSION_ID: 'taker-died' };
      const [a, b] = ['a', 'b'].map((n) => fleetDaemon(`${name}-claim-${n}`, url(), env)) as [FleetDaemon, FleetDaemon];
      await Promise.all([a.start(), b.start()]);
      const store = await openStoreUrl(url());
      try {
        const modern = await ask(a, 'modern/ask_form', 'claimed by the dead');
        await a.kill();
        // What a survivor (of another host, holding no lease now) killed right after its claim leaves: its claim on
        // the call's state, and nothing else.
        const tasks = createTaskStore(store.keyv);
        expect(await tasks.claim((await tasks.get(modern.task))!, 'another-host:4242:dead')).toBe(true);
        await until('a survivor taking over A', async () => (b.log().includes('took over') ? true : undefined));
        expect((await b.fetch(`/v1/elicit/${modern.question}/accept`, post({ content: { repo: 'me/claimed' } }))).status).toBe(
          200,
        );
        const done = await completed(b, modern.task, 'the claimed call to complete');
        expect(done.pid).toBe(b.pid);
        expect(fixtureEcho(done.result!).received.details).toMatchObject({ action: 'accept', content: { repo: 'me/claimed' } });
      } catch (error) {
        console.log(a.log(), b.log());
        throw error;
      } finally {
        await store.close();
        await Promise.all([a.kill(), b.stop()]);
      }
    }, 120_000);

    it('resumes a call whose first two takers died one after the other between their claims and adoptions', async () => {
      const env = { MCPX_LEASE_MS: '1000', MCPX_SESSION_ID: 'takers-died' };
      const [a, b] = ['a', 'b'].map((n) => fleetDaemon(`${name}-chain-${n}`, url(), env)) as [FleetDaemon, FleetDaemon];
      await Promise.all([a.start(), b.start()]);
      const store = await openStoreUrl(url());
      try {
        const modern = await ask(a, 'modern/ask_form', 'claimed by two dead');
        await a.kill();
        // What two survivors (of other hosts, holding no lease now) left, each killed right after its claim: the
        // first one's claim on the call's state, and the second one's claim after the first.
        const tasks = createTaskStore(store.keyv);
        const state = (await tasks.get(modern.task))!;
        expect(await tasks.claim(state, 'another-host:4242:first')).toBe(true);
        expect(await tasks.claim(state, 'another-host:4343:second', 'another-host:4242:first')).toBe(true);
        await until('a survivor taking over A', async () => (b.log().includes('took over') ? true : undefined));
        expect((await b.fetch(`/v1/elicit/${modern.question}/accept`, post({ content: { repo: 'me/chain' } }))).status).toBe(200);
        const done = await completed(b, modern.task, 'the twice-claimed call to complete');
        expect(done.pid).toBe(b.pid);
        // From another process: the result, and one resume of the call.
        const result = await cli(b, ['task', 'result', modern.task, '--json', '--config', b.configPath]);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain('me/chain');
        const audit = await cli(b, ['log', '--json', '--limit', '1000']);
        const resumed = audit.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { kind: string; elicit?: string })
          .filter((e) => e.kind === 'elicit.resumed' && e.elicit === modern.question);
        expect(resumed).toHaveLength(1);
      } catch (error) {
        console.log(a.log(), b.log());
        throw error;
      } finally {
        await store.close();
        await Promise.all([a.kill(), b.stop()]);
      }
    }, 120_000);

    it('resumes the modern call in one survivor and abandons the legacy one, refusing its answer', async () => {
      // One session on every host (callers are bound to their session): the CLI runs with the same env.
      const env = { MCPX_LEASE_MS: '1000', MCPX_SESSION_ID: 'takeover' };
      const [a, b, c] = ['a', 'b', 'c'].map((n) => fleetDaemon(`${name}-${n}`, url(), env)) as [
        FleetDaemon,
        FleetDaemon,
        FleetDaemon,
      ];
      await Promise.all([a.start(), b.start(), c.start()]);
      try {
        const modern = await ask(a, 'modern/ask_form', 'survives');
        const legacy = await ask(a, 'legacy/ask_form', 'dies');
        await a.kill();

        // The survivors see A's lease lapse; one takes it and abandons the legacy question.
        const abandoned = await until('the legacy question to be abandoned', async () => {
          const { elicitation } = (await (await b.fetch(`/v1/elicit/${legacy.question}`)).json()) as {
            elicitation: { state: string; abandonedReason?: string };
          };
          return elicitation.state === 'abandoned' ? elicitation : undefined;
        });
        expect(abandoned.abandonedReason).toContain('daemon holding the call died');
        const refused = await cli(c, ['elicit', 'answer', legacy.question, '{"repo":"me/late"}', '--config', c.configPath]);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('ELICITATION_ABANDONED');
        expect(refused.stderr).toContain(`question ${legacy.question} was abandoned`);
        const failed = await taskOf(b, legacy.task);
        expect(failed.state).toBe('failed');
        expect(failed.error?.code).toBe('ELICITATION_ABANDONED');

        // The modern call: answered through C, resumed by whichever survivor adopted it.
        expect((await c.fetch(`/v1/elicit/${modern.question}/accept`, post({ content: { repo: 'me/thing' } }))).status).toBe(200);
        const done = await completed(b, modern.task, 'the modern call to complete');
        expect([b.pid, c.pid]).toContain(done.pid);
        expect(fixtureEcho(done.result!).received.details).toMatchObject({ action: 'accept', content: { repo: 'me/thing' } });
        const result = await cli(b, ['task', 'result', modern.task, '--json', '--config', b.configPath]);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain('me/thing');

        // Exactly once: one resume of the modern question, one abandon and no answer of the legacy one.
        const audit = await cli(b, ['log', '--json', '--limit', '1000']);
        const events = audit.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { kind: string; elicit?: string });
        const count = (kind: string, id: string): number => events.filter((e) => e.kind === kind && e.elicit === id).length;
        expect(count('elicit.resumed', modern.question)).toBe(1);
        expect(count('elicit.answered', modern.question)).toBe(1);
        expect(count('elicit.abandoned', legacy.question)).toBe(1);
        expect(count('elicit.answered', legacy.question)).toBe(0);
      } catch (error) {
        console.log(a.log(), b.log(), c.log());
        throw error;
      } finally {
        await Promise.all([a.kill(), b.stop(), c.stop()]);
      }
    }, 120_000);
  });
}

describe('a survivor whose write of a call it took over never landed (Postgres)', () => {
  interface Held {
    a: FleetDaemon;
    b: FleetDaemon;
    c: FleetDaemon;
    /** Ends the hold: the held write fails (its connection ends), then the lock goes. */
    release: () => Promise<void>;
    /** The holder the call's record names now. */
    holder: () => Promise<string | undefined>;
  }

  /**
   * A's call, A killed, and B's write of it in its takeover of A held: B's live row is locked by an open transaction
   * here, so that write waits (whatever B wrote beside it, or before it, is in the store). `then` ends the hold its
   * way and names the daemon that must resume the call; it is answered, completes there once, and its result is read
   * by another process.
   */
  async function heldTakeover(tag: string, then: (held: Held) => Promise<FleetDaemon>): Promise<void> {
    const env = { MCPX_LEASE_MS: '1000', MCPX_SESSION_ID: `held-${tag}` };
    const daemons = ['a', 'b', 'c'].map((n) => fleetDaemon(`pg-${tag}-${n}`, servers.postgres.url, env));
    const [a, b, c] = daemons as [FleetDaemon, FleetDaemon, FleetDaemon];
    await Promise.all([a.start(), b.start()]);
    const store = await openStoreUrl(servers.postgres.url);
    const locker = new pg.Client({ connectionString: servers.postgres.url });
    await locker.connect();
    try {
      const modern = await ask(a, 'modern/ask_form', `held ${tag}`);
      const { table } = tablesOf(store.keyv);
      const rowOfB = rawKey(store.keyv, `tasks-live:${daemonPaths(b.env, b.configPath).fingerprint}`);
      await locker.query('BEGIN');
      await locker.query(
        `INSERT INTO ${table} (key, value) VALUES ($1, '[]') ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [rowOfB],
      );
      const [{ pid: lockerPid }] = (await locker.query('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
      const blockedSql = `SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`;
      await a.kill();
      await until('B to write its live row in its takeover of A', async () =>
        (await locker.query(blockedSql, [lockerPid])).rowCount ? true : undefined,
      );
      const tasks = createTaskStore(store.keyv);
      const release = async (): Promise<void> => {
        await locker.query(`SELECT pg_terminate_backend(pid) FROM (${blockedSql}) AS blocked`, [lockerPid]);
        await locker.query('ROLLBACK');
      };
      const resumer = await then({ a, b, c, release, holder: async () => (await tasks.get(modern.task))?.holder });
      await until(`${resumer.name} to take the call over`, async () =>
        resumer.log().includes('1 call(s) resumed') ? true : undefined,
      );
      expect((await resumer.fetch(`/v1/elicit/${modern.question}/accept`, post({ content: { repo: `me/${tag}` } }))).status).toBe(
        200,
      );
      const done = await completed(resumer, modern.task, 'the held call to complete');
      expect(done.pid).toBe(resumer.pid);
      const result = await cli(resumer, ['task', 'result', modern.task, '--json', '--config', resumer.configPath]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`me/${tag}`);
    } catch (error) {
      console.log(...daemons.map((d) => d.log()));
      throw error;
    } finally {
      await locker.end().catch(() => undefined);
      await store.close();
      await Promise.all(daemons.map((d) => d.kill()));
    }
  }

  it("leaves the call to the next survivor when the taker is killed there, never in nobody's live row", async () => {
    await heldTakeover('killed', async ({ b, c, release, holder }) => {
      // A record written on its own names B at once (none does when record and row go in one write, so the wait
      // is bounded; either way B dies next).
      const holderB = daemonPaths(b.env, b.configPath).fingerprint;
      await until('the record to name B', async () => ((await holder()) === holderB ? true : undefined), 1000).catch(
        () => undefined,
      );
      await b.kill();
      await release();
      await c.start();
      return c;
    });
  }, 120_000);

  it('retakes the call in the taker when its write failed (the store erred), kept meanwhile by another survivor', async () => {
    // B lives on. While its write is held, A's lease (not renewed by B meanwhile) lapses and C sweeps A: the call is
    // B's claim, so C leaves it in A's row. B's write fails, A's lease lapses again, and B finds its own claim.
    await heldTakeover('erred', async ({ a, b, c, release }) => {
      await c.start();
      const holderA = daemonPaths(a.env, a.configPath).fingerprint;
      await until('C to sweep A while B is held', async () => (c.log().includes(`took over ${holderA}`) ? true : undefined));
      await release();
      return b;
    });
  }, 120_000);
});
