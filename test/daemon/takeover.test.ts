/**
 * A daemon dies (SIGKILL, as a host does) with calls in flight; the daemons left on the same store carry on.
 * Its modern call is adopted by exactly one survivor from the stored continuation, resumes once answered, and its
 * result is there for `mcpx task result`; its legacy call died with its connection, so its question is abandoned
 * and an answer to it is refused (ELICITATION_ABANDONED, exit 1), never accepted. Real daemon processes (the built
 * CLI), real fixture servers, on Redis and on Postgres started here.
 */
import { describe, expect, it } from 'vitest';
import { openStoreUrl } from '../../src/broker/store-url.js';
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
        const done = await until(
          'the claimed call to complete',
          async () => {
            const task = await taskOf(b, modern.task);
            return task.state === 'complete' ? task : undefined;
          },
          20_000,
        );
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
        const done = await until('the modern call to complete', async () => {
          const task = await taskOf(b, modern.task);
          return task.state === 'complete' ? task : undefined;
        });
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
