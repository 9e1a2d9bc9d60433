/**
 * An `mcpx serve` over stdio that stalled past its lease on a shared store, while another process took the lease
 * (and with it the serve's calls), must never drive a call again. A host launched it and does not restart a stdio
 * server that exits, so it stays connected and refuses each new call with LEASE_LOST: a tool error that says what
 * happened and what to do (restart the server), not "the task runner is closed". What goes through the store
 * still works: mcpx_elicit_list, and mcpx_call_result of a call it asked on, which another process resumed. Real processes: the built CLI, a real redis-server and a real Postgres; the stall
 * is SIGSTOP, and every wait is on a condition (the store's clock, the serve's answer), never on a clock of ours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoreUrl } from '../../src/broker/store-url.js';
import { openLeases, type Leases } from '../../src/tasks/leases.js';
import { until } from '../helpers/daemon-fleet.js';
import { stallPastLease } from '../helpers/stall.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { ownedServe, serveSetup, textOf } from '../helpers/serve.js';

let redis: RedisServer;
let postgres: PostgresServer;
beforeAll(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([redis?.stop(), postgres?.stop()]);
});

/** The serve's lease row (`holder:serve-<pid>-<random>`): the only serve on this store. */
async function serveLease(leases: Leases): Promise<{ name: string; owner: string; expiresAt: number; pid: number }> {
  return until('the serve holds its lease', async () => {
    const row = (await leases.list()).leases.find((l) => l.name.startsWith('holder:serve-'));
    return row ? { ...row, pid: Number(row.name.split('-')[1]) } : undefined;
  });
}

for (const [name, url] of [
  ['Redis', () => redis.url],
  ['Postgres', () => postgres.url],
] as const) {
  describe(`mcpx serve on ${name} that lost its lease`, () => {
    it('stays connected and refuses new calls with LEASE_LOST, saying what happened and to restart it', async () => {
      const setup = serveSetup(
        { modern: { ...stdioFixture('dual-era'), era: 'modern' } },
        { MCPX_STORE_URL: url(), MCPX_LEASE_MS: '1000', MCPX_SESSION_ID: `lease-lost-${name}` },
      );
      const serve = await ownedServe(setup);
      const store = await openStoreUrl(url());
      const leases = openLeases(store)!;
      try {
        expect(textOf(await serve.client.callTool('no_ask', { text: 'before' }))).toContain('before');
        // A modern call left waiting on a question (the client declared no elicitation): it is in the store.
        const asked = textOf(await serve.client.callTool('ask_form', { title: `held-${name}` }));
        const id = /elc-[0-9a-f]{16}/.exec(asked)?.[0];
        const task = /tsk-[0-9a-f]{16}/.exec(asked)?.[0];
        expect(id && task, asked).toBeTruthy();
        const lease = await serveLease(leases);

        // The serve stalls past its lease, and another process takes it (as one taking over a call of its does).
        await stallPastLease(lease.pid, leases, lease);

        // Until its next renewal is refused, the serve still runs calls (one in flight then fails as abandoned).
        await until('the serve hears its lease was taken', async () =>
          (await serve.client.callTool('no_ask', { text: 'after' })).isError === true ? true : undefined,
        );
        // From then on it refuses every new call.
        const refused = textOf(await serve.client.callTool('no_ask', { text: 'new' }));
        expect(refused).not.toContain('task runner is closed');
        expect(refused).toContain('LEASE_LOST');
        expect(refused).toContain('another mcpx process took over the calls it held');
        expect(refused).toMatch(/Restart this MCP server/);
        // Refused for good (it never takes the lease back), and still connected: the store's tools answer.
        expect(textOf(await serve.client.callTool('no_ask', { text: 'again' }))).toContain('LEASE_LOST');
        const listed = await serve.client.callTool('mcpx_elicit_list', {});
        expect(listed.isError, textOf(listed)).not.toBe(true);

        // The call it asked on goes on elsewhere: answered, then resumed by whoever asks for its result (another
        // process, which takes it over), and this serve reports where it went from the store, not its own last stop.
        const answered = await setup.cli(['elicit', 'answer', id!, '{"repo":"acme/lease-lost"}']);
        expect(answered.code, answered.stderr).toBe(0);
        const resumed = await setup.cli(['task', 'result', task!, '--json', '--timeout', '20']);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stdout).toContain('acme/lease-lost');
        const result = textOf(await serve.client.callTool('mcpx_call_result', { task, waitSeconds: 5 }));
        expect(result).toContain('acme/lease-lost');
        expect(await serve.endStdin()).toBe(0);
      } finally {
        await serve.kill().catch(() => undefined);
        await store.close();
      }
    }, 60_000);
  });
}
