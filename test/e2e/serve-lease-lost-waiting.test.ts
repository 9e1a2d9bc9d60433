/**
 * What reaches an `mcpx serve` (stdio) after it lost its lease on a shared store, for a call it had asked on: a modern
 * (2026-07-28) client's retry (inputResponses + requestState), and a legacy (v1) client's request still waiting on its
 * call (its answer to the question comes back after the lease was lost). Neither may hang: the store's next round or
 * result, or LEASE_LOST saying what happened, with the call's id and how it resumes. Real processes: the built CLI,
 * real v1/v2 SDK clients, a real redis-server and Postgres; the stall is SIGSTOP, every wait is on a condition.
 */
import { describe, expect, it } from 'vitest';
import { openStoreUrl } from '../../src/broker/store-url.js';
import { openLeases, type Leases } from '../../src/tasks/leases.js';
import { until } from '../helpers/daemon-fleet.js';
import { stallPastLease } from '../helpers/stall.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { useStoreServers } from '../helpers/store-servers.js';
import { serveSetup, textOf, v1Client, v2Client, type Answer, type TestClient } from '../helpers/serve.js';

const stores = useStoreServers();

type Round = { resultType?: string; inputRequests: Record<string, unknown>; requestState: string; isError?: boolean };

/** Stalls the serve whose lease row is new (SIGSTOP) until its lease lapses, takes it, and lets the serve run on. */
async function loseLease(leases: Leases, seen: Set<string>): Promise<void> {
  const lease = await until('the serve holds its lease', async () =>
    (await leases.list()).leases.find((l) => l.name.startsWith('holder:serve-') && !seen.has(l.name)),
  );
  seen.add(lease.name);
  await stallPastLease(Number(lease.name.split('-')[1]), leases, lease);
}

/** Until the serve has heard its renewal refused: a new call is refused. */
const heard = (client: TestClient) =>
  until('the serve hears its lease was taken', async () =>
    (await client.callTool('no_ask', { text: 'probe' })).isError === true ? true : undefined,
  );

for (const [name, url] of [
  ['Redis', () => stores.redis.url],
  ['Postgres', () => stores.postgres.url],
] as const) {
  describe(`mcpx serve on ${name} that lost its lease, for a call it asked on`, () => {
    const seen = new Set<string>();
    const setupFor = (session: string) =>
      serveSetup(
        { modern: { ...stdioFixture('dual-era'), era: 'modern' } },
        { MCPX_STORE_URL: url(), MCPX_LEASE_MS: '1000', MCPX_SESSION_ID: `${session}-${name}` },
      );

    it("a modern client's retry gets the store's next round, LEASE_LOST naming the call, then its result: never a hang", async () => {
      const setup = setupFor('lease-lost-retry');
      const client = await v2Client(setup, { era: 'modern', answer: () => ({ action: 'cancel' }), autoFulfill: false });
      const store = await openStoreUrl(url());
      try {
        const args = { title: `retry-${name}` };
        const call = (extra: Record<string, unknown> = {}) =>
          client.request!('tools/call', { name: 'ask_form', arguments: args, ...extra }) as Promise<Round>;
        const first = await call();
        expect(first.resultType).toBe('input_required');
        const [key] = Object.keys(first.inputRequests);

        await loseLease(openLeases(store)!, seen);
        await heard(client);

        // A retry that answers nothing: the question still waits in the store, so it is asked again (the next round).
        const again = await call({ inputResponses: {}, requestState: first.requestState });
        expect(again.resultType).toBe('input_required');
        expect(Object.keys(again.inputRequests)).toEqual([key]);

        // The retry that answers: nobody drives the call now (this serve may not), so LEASE_LOST, at once.
        const refused = (await call({
          inputResponses: { [key!]: { action: 'accept', content: { repo: `acme/retry-${name}` } } },
          requestState: again.requestState,
        })) as unknown as Record<string, unknown>;
        expect(refused.isError).toBe(true);
        const text = textOf(refused);
        expect(text).toContain('LEASE_LOST');
        expect(text).toMatch(/Restart this MCP server/);
        const task = /mcpx task result (tsk-[0-9a-f]{16})/.exec(text)?.[1];
        expect(task, text).toBeTruthy();

        // The answer was kept: another process resumes the call with it.
        const resumed = await setup.cli(['task', 'result', task!, '--json', '--timeout', '20']);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stdout).toContain(`acme/retry-${name}`);
        // And the same retry, sent again, now gets the call's result from the store.
        const done = (await call({
          inputResponses: { [key!]: { action: 'accept', content: { repo: `acme/retry-${name}` } } },
          requestState: again.requestState,
        })) as unknown as Record<string, unknown>;
        expect(done.isError, textOf(done)).not.toBe(true);
        expect(JSON.stringify(done)).toContain(`acme/retry-${name}`);
      } finally {
        await client.close().catch(() => undefined);
        await store.close();
      }
    }, 90_000);

    it('a legacy (v1) client whose request waits on its call gets LEASE_LOST, not a hang', async () => {
      const setup = setupFor('lease-lost-legacy');
      let release: (answer: Answer) => void = () => undefined;
      const answered = new Promise<Answer>((resolve) => (release = resolve));
      // The person answers only after the serve lost its lease; the v1 request stays open meanwhile.
      const client = await v1Client(setup, { answer: (() => answered) as unknown as () => Answer });
      const store = await openStoreUrl(url());
      try {
        const waiting = client.callTool('ask_form', { title: `legacy-${name}` });
        await until('the question reached the client', async () => (client.asked.length ? true : undefined));

        await loseLease(openLeases(store)!, seen);
        await heard(client);

        release({ action: 'accept', content: { repo: `acme/legacy-${name}` } });
        const result = await waiting;
        expect(result.isError).toBe(true);
        const text = textOf(result);
        expect(text).toContain('LEASE_LOST');
        expect(text).toMatch(/Restart this MCP server/);
        expect(text).not.toContain('task runner is closed');
      } finally {
        await client.close().catch(() => undefined);
        await store.close();
      }
    }, 90_000);
  });
}
