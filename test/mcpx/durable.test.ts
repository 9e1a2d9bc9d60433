/**
 * createMcpx({ store }): a Node app whose questions live in its own SQLite file or Redis. A question nobody answers
 * in process waits in that store; it is answered from another process (the built CLI with MCPX_STORE_URL, REST on a
 * daemon over the same store) and the call resumes: a legacy call in the process that asked, a modern call in
 * whichever process asks for its result once the asker let it go. Real fixture servers, a real SQLite file, a real
 * redis-server.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/broker/index.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { createMcpx, type McpxOptions } from '../../src/mcpx.js';
import type { DurableMcpx, StoreOption } from '../../src/mcpx-durable.js';
import { socketFetch } from '../../src/surfaces/daemon/client.js';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { openDaemonParts } from '../../src/surfaces/daemon/daemon-wiring.js';
import { runDaemon } from '../../src/surfaces/daemon/daemon.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { fixtureEcho, stdioFixture } from '../helpers/fixture-servers.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const otherProcess = join(root, 'test', 'helpers', 'durable-process.ts');
const config = {
  mcpServers: {
    fx: { ...stdioFixture('dual-era'), era: 'modern' as const },
    old: { ...stdioFixture('legacy-v1'), era: 'legacy' as const },
  },
};

function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      args,
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

/** `mcpx elicit ...` from the built CLI, on the app's store, with no daemon anywhere (a fresh state dir). */
const mcpxCli = (storeUrl: string, ...args: string[]) =>
  run([cli, 'elicit', ...args], { MCPX_STORE_URL: storeUrl, MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-durable-cli-')) });

const appOn = (store: StoreOption, extra: Partial<McpxOptions> = {}): Promise<DurableMcpx> =>
  createMcpx({
    config,
    store,
    eraCache: createMemoryEraCache(),
    env: { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-durable-app-')) },
    ...extra,
  });

let redis: RedisServer;
// A database per test, so one test's questions never show in another's listing.
let redisDb = 0;
beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

describe('createMcpx({ store })', () => {
  for (const [name, storeOf] of [
    ['a SQLite file', () => join(mkdtempSync(join(tmpdir(), 'mcpx-durable-')), 'app.sqlite')],
    ['Redis', () => `${redis.url}/${++redisDb}`],
  ] as const) {
    describe(`on ${name}`, () => {
      it('holds a legacy call open while the question waits in the store; the built CLI answers it and the call completes here', async () => {
        const where = storeOf();
        const url = where.startsWith('redis') ? where : `sqlite:${where}`;
        // A store object of ours for the file, a URL for Redis: both are what a host hands over.
        const store = where.startsWith('redis') ? url : await openSqliteStore(where);
        const app = await appOn(store);
        try {
          const outcome = await app.callTool('old', 'ask_confirm', { action: 'deploy' });
          expect(outcome.status).toBe('input-required');
          if (outcome.status !== 'input-required') return;
          expect(outcome.task).toMatch(/^tsk-[0-9a-f]{16}$/);
          const [question] = outcome.questions;
          expect(question!.era).toBe('legacy');
          expect((await app.pending()).map((q) => q.id)).toEqual([question!.id]);

          const listed = await mcpxCli(url, 'list', '--json');
          expect(listed.stderr).toBe('');
          expect(JSON.stringify(JSON.parse(listed.stdout))).toContain(question!.id);
          const answered = await mcpxCli(url, 'answer', question!.id, '{"confirm":true}');
          expect(answered.code, answered.stderr).toBe(0);

          const done = await app.result<CallToolResult>(outcome.task!);
          expect(done.status).toBe('complete');
          if (done.status !== 'complete') return;
          expect(fixtureEcho(done.result as never).received.confirm).toEqual({ action: 'accept', content: { confirm: true } });
          expect(await app.pending()).toEqual([]);
        } finally {
          await app.close();
          if (typeof store !== 'string') await store.close();
        }
      });

      it('lets a modern call go on close; REST on a daemon over the store answers it and another process resumes it', async () => {
        const where = storeOf();
        const url = where.startsWith('redis') ? where : `sqlite:${where}`;
        const asker = await appOn(url);
        const outcome = await asker.callTool('fx', 'ask_form', { title: 'from the app' });
        await asker.close();
        expect(outcome.status).toBe('input-required');
        if (outcome.status !== 'input-required') return;
        const [question] = outcome.questions;
        expect(question!.era).toBe('modern');

        // REST: a daemon started on the same store (its own state dir and socket), answering over its socket.
        const dir = mkdtempSync(join(tmpdir(), 'mcpx-durable-daemon-'));
        const configPath = join(dir, 'mcpx.json');
        writeFileSync(configPath, JSON.stringify(config));
        const env = { MCPX_STATE_DIR: join(dir, 'state'), PATH: process.env.PATH ?? '', MCPX_STORE_URL: url };
        const daemon = await runDaemon({
          paths: daemonPaths(env, configPath),
          version: '0.1.0-test',
          openParts: () => openDaemonParts({ env, cwd: dir, configPath, version: '0.1.0-test' }),
          idleMs: 0,
        });
        const rest = socketFetch(daemon.state.socket);
        try {
          // The app's session is not the daemon's: a person answering for it is an operator (?all=1).
          const listed = (await (await rest.fetch('/v1/elicit?all=1')).json()) as { elicitations: Array<{ id: string }> };
          expect(listed.elicitations.map((e) => e.id)).toContain(question!.id);
          const accepted = await rest.fetch(`/v1/elicit/${question!.id}/accept?all=1`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ content: { repo: 'me/thing' } }),
          });
          expect(accepted.status).toBe(200);
        } finally {
          rest.close();
          await daemon.stop();
        }

        const resumed = await run(['--import', 'tsx', otherProcess, 'result', url, outcome.task!], {});
        expect(resumed.code, resumed.stderr).toBe(0);
        const printed = JSON.parse(resumed.stdout) as {
          pid: number;
          outcome: { status: string; task: string; result: CallToolResult };
        };
        expect(printed.outcome.status).toBe('complete');
        expect(printed.outcome.task).toBe(outcome.task);
        expect(fixtureEcho(printed.outcome.result as never).received.details).toEqual({
          action: 'accept',
          content: { repo: 'me/thing', private: false, priority: 'normal' },
        });
      });
    });
  }

  it('answers in process through the policy and onElicit, recording who answered, and keeps decline apart from cancel', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcpx-durable-')), 'app.sqlite');
    const app = await appOn(`sqlite:${file}`, {
      policy: { rules: [{ match: { server: 'fx', tool: 'ask_confirm' }, action: 'decline', because: 'no deploys today' }] },
      onElicit: async (question) =>
        question.tool === 'ask_form' ? { action: 'accept', content: { repo: 'me/app' } } : undefined,
    });
    try {
      const byPolicy = await app.callTool('fx', 'ask_confirm', {});
      expect(byPolicy.status).toBe('complete');
      if (byPolicy.status === 'complete')
        expect(fixtureEcho(byPolicy.result as never).received.confirm).toEqual({ action: 'decline' });
      const byHandler = await app.callTool('old', 'ask_form', {});
      expect(byHandler.status).toBe('complete');
      if (byHandler.status !== 'complete') return;
      expect(fixtureEcho(byHandler.result as never).received.details?.content).toMatchObject({ repo: 'me/app' });
      expect((await app.task(byHandler.task!))?.state).toBe('complete');
      const asked = await app.pending({ trace: byHandler.callId, state: 'answered' });
      expect(asked).toHaveLength(1);
      expect((await app.broker.lookup(asked[0]!.id))?.by).toBe('api');

      // Nobody here answers ask_url: it waits; a cancel from here is a cancel on the server's side, not a decline.
      const waiting = await app.callTool('fx', 'ask_two', {});
      expect(waiting.status).toBe('input-required');
      if (waiting.status !== 'input-required') return;
      for (const q of waiting.questions)
        await app.answer(q.id, q.key === 'confirm' ? { action: 'cancel' } : { action: 'decline' });
      const done = await app.result(waiting.task!);
      expect(done.status).toBe('complete');
      if (done.status === 'complete')
        expect(fixtureEcho(done.result as never).received).toMatchObject({
          confirm: { action: 'cancel' },
          details: { action: 'decline' },
        });
    } finally {
      await app.close();
    }
  });

  it('says so when the task does not exist, and when a policy is invalid before opening anything', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcpx-durable-')), 'app.sqlite');
    await expect(appOn(`sqlite:${file}`, { policy: { mode: 'sometimes' as never } })).rejects.toMatchObject({
      code: 'POLICY_INVALID',
    });
    const app = await appOn(`sqlite:${file}`);
    try {
      await expect(app.result('tsk-0000000000000000')).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
    } finally {
      await app.close();
    }
  });
});
