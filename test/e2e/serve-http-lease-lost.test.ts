/**
 * `mcpx serve --http` on a shared store that stalled past its lease while another process took it (and with it the
 * serve's calls) exits 70 (EX_SOFTWARE, like `mcpx daemon run`), saying why on stderr, so the supervisor (systemd,
 * a container's restart policy, a load balancer's pool) starts a fresh one instead of keeping a process that refuses
 * every call. A call it was still running gets a tool error saying why before the process goes. The call it had
 * asked on is not lost: answered from elsewhere, it resumes in another process. Real
 * processes: the built CLI, a real redis-server and Postgres; the stall is SIGSTOP, every wait is on a condition.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openStoreUrl } from '../../src/broker/store-url.js';
import { openLeases } from '../../src/tasks/leases.js';
import { until } from '../helpers/daemon-fleet.js';
import { stallPastLease } from '../helpers/stall.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { useStoreServers } from '../helpers/store-servers.js';
import { CLI, modernPost, serveSetup } from '../helpers/serve.js';

const stores = useStoreServers();

for (const [name, url] of [
  ['Redis', () => stores.redis.url],
  ['Postgres', () => stores.postgres.url],
] as const) {
  describe(`mcpx serve --http on ${name} that lost its lease`, () => {
    it('exits 70, saying why, and the call it asked on resumes elsewhere', async () => {
      const setup = serveSetup(
        { modern: { ...stdioFixture('dual-era'), era: 'modern' } },
        { MCPX_STORE_URL: url(), MCPX_LEASE_MS: '1000' },
      );
      // Loopback, and not a test of the bearer token: --no-auth.
      const child = spawn(process.execPath, [CLI, 'serve', '--config', setup.configPath, '--http', '--no-auth'], {
        cwd: setup.dir,
        env: setup.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      let exitCode: number | null | undefined;
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done((exitCode = code))));
      const store = await openStoreUrl(url());
      const leases = openLeases(store)!;
      try {
        const endpoint = await new Promise<string>((done) => {
          let out = '';
          child.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            if (out.includes('\n')) done(out.split('\n')[0]!.trim());
          });
        });
        const session = { headers: { 'x-mcpx-session': `http-lease-lost-${name}` } };
        const plain = await modernPost(endpoint, 'tools/call', { name: 'no_ask', arguments: { text: 'before' } }, session);
        expect(JSON.stringify(plain.body.result)).toContain('before');
        // A modern call left waiting on a question (no elicitation declared): it is in the store.
        const asked = JSON.stringify(
          (await modernPost(endpoint, 'tools/call', { name: 'ask_form', arguments: { title: name } }, session)).body,
        );
        const id = /elc-[0-9a-f]{16}/.exec(asked)?.[0];
        const task = /tsk-[0-9a-f]{16}/.exec(asked)?.[0];
        expect(id && task, asked).toBeTruthy();

        // A call still running when the lease goes: answered (failed, saying why) before the process exits.
        const running = modernPost(endpoint, 'tools/call', { name: 'sleep', arguments: { ms: 60_000 } }, session).then(
          (answer) => JSON.stringify(answer.body),
          (error: Error) => `no answer: ${error.message}`,
        );

        const lease = await until('the serve holds its lease', async () =>
          (await leases.list()).leases.find((l) => l.name.startsWith(`holder:serve-${child.pid}-`)),
        );
        await stallPastLease(child.pid!, leases, lease);

        // Until it hears its renewal refused it may still answer; then it either exits or (before) refuses calls.
        const outcome = await until('the serve exits or refuses calls', async () => {
          if (exitCode !== undefined) return 'exited';
          const probe = await modernPost(endpoint, 'tools/call', { name: 'no_ask', arguments: { text: 'probe' } }, session).catch(
            () => undefined,
          );
          if (probe === undefined) return (await exited, 'exited');
          return JSON.stringify(probe.body).includes('LEASE_LOST') ? 'stayed up, refusing calls' : undefined;
        });
        expect(outcome, stderr).toBe('exited');
        expect(await exited, stderr).toBe(70);
        expect(stderr).toMatch(/exiting 70 \(lease lost: another process took over our calls/);
        const cut = await running;
        expect(cut).toContain('"isError":true');
        expect(cut).toContain('paused past its lease and another process took its calls over');

        // Nothing of the call is lost: answered from elsewhere, another process resumes it.
        const answered = await setup.cli(['elicit', 'answer', '--all', id!, '{"repo":"acme/http-lease-lost"}']);
        expect(answered.code, answered.stderr).toBe(0);
        // The task is the HTTP session's, as its question was: read as the operator that answered it.
        const resumed = await setup.cli(['task', 'result', '--all', task!, '--json', '--timeout', '20']);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stdout).toContain('acme/http-lease-lost');
      } finally {
        if (exitCode === undefined) child.kill('SIGKILL');
        await exited;
        await store.close();
      }
    }, 90_000);
  });
}
