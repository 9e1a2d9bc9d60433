/**
 * An app embedding mcpx (createMcpx({ store }), the Node API) on a shared store, whose process stalled past its lease
 * while another process took the lease (and with it the app's calls): every new call then throws LEASE_LOST (what
 * happened, what to do), not "the task runner is closed", and the process goes on (no exit). A result() of a call it
 * had asked on, that nobody drives now, throws it too, naming the call; the call resumes elsewhere with its answer.
 * Real processes: the app (test/helpers/durable-app-process.ts), the built CLI, a real redis-server and Postgres; the
 * stall is SIGSTOP, every wait is on a condition.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openStoreUrl } from '../../src/broker/store-url.js';
import { openLeases } from '../../src/tasks/leases.js';
import { until } from '../helpers/daemon-fleet.js';
import { stallPastLease } from '../helpers/stall.js';
import { useStoreServers } from '../helpers/store-servers.js';
import { serveSetup } from '../helpers/serve.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const stores = useStoreServers();

type Reply = {
  outcome?: { status: string; task: string; questions?: Array<{ id: string }> };
  error?: { code?: string; message: string };
};

/** The app process: one command per line, one JSON reply per line. */
async function startApp(storeUrl: string): Promise<{ pid: number; send(line: string): Promise<Reply>; stop(): Promise<void> }> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'test', 'helpers', 'durable-app-process.ts'), storeUrl],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', MCPX_LEASE_MS: '1000', MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-app-')) },
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`the app exited: ${stderr}`);
    return value as string;
  };
  const ready = await next();
  expect(ready, stderr).toMatch(/^ready \d+$/);
  return {
    pid: Number(ready.split(' ')[1]),
    send: async (line) => {
      child.stdin.write(`${line}\n`);
      return JSON.parse(await next()) as Reply;
    },
    stop: async () => {
      child.stdin.end();
      if ((await exited) !== 0) throw new Error(`the app exited non-zero: ${stderr}`);
    },
  };
}

/** result(task) in another app process on the store (the same servers), which takes the call over: its JSON line. */
function resumeElsewhere(storeUrl: string, task: string): Promise<string> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(root, 'test', 'helpers', 'durable-process.ts'), 'result', storeUrl, task],
      { cwd: root, env: { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-app-')) } },
      (error, stdout, stderr) => done(`${stdout}${error ? ` (${error.message}) ${stderr}` : ''}`),
    );
  });
}

for (const [name, url] of [
  ['Redis', () => stores.redis.url],
  ['Postgres', () => stores.postgres.url],
] as const) {
  describe(`an app on ${name} that lost its lease`, () => {
    it('throws LEASE_LOST for new calls and for a result it may not drive, and keeps running', async () => {
      const app = await startApp(url());
      const store = await openStoreUrl(url());
      const leases = openLeases(store)!;
      const cli = serveSetup({}, { MCPX_STORE_URL: url() }).cli;
      try {
        expect((await app.send('call no_ask {"text":"before"}')).outcome?.status).toBe('complete');
        const asked = await app.send(`call ask_form {"title":"app-${name}"}`);
        expect(asked.outcome?.status, JSON.stringify(asked)).toBe('input-required');
        const task = asked.outcome!.task;

        const lease = await until('the app holds its lease', async () =>
          (await leases.list()).leases.find((l) => l.name.startsWith('holder:app-') && l.owner.split(':')[1] === String(app.pid)),
        );
        await stallPastLease(app.pid, leases, lease);

        await until('the app hears its lease was taken', async () =>
          (await app.send('call no_ask {"text":"after"}')).error ? true : undefined,
        );
        const refused = await app.send('call no_ask {"text":"new"}');
        expect(refused.error?.code, JSON.stringify(refused)).toBe('LEASE_LOST');
        expect(refused.error?.message).not.toContain('task runner is closed');
        expect(refused.error?.message).toContain('another mcpx process took over the calls it held');
        expect(refused.error?.message).toMatch(/create a new one/);

        // The call it asked on: answered from elsewhere; this app may not resume it, and says so, naming it.
        const question = asked.outcome!.questions![0]!.id;
        const answered = await cli(['elicit', 'answer', '--all', question, '{"repo":"acme/app"}']);
        expect(answered.code, answered.stderr).toBe(0);
        const result = await app.send(`result ${task}`);
        expect(result.error?.code, JSON.stringify(result)).toBe('LEASE_LOST');
        expect(result.error?.message).toContain(task);
        // Another app on the store (test/helpers/durable-process.ts) resumes it with that answer.
        const resumed = await resumeElsewhere(url(), task);
        expect(resumed, resumed).toContain('acme/app');
        // Still running, and still refusing: it exits only when the app closes it.
        expect((await app.send('call no_ask {"text":"last"}')).error?.code).toBe('LEASE_LOST');
        await app.stop();
      } finally {
        await store.close();
      }
    }, 90_000);
  });
}
