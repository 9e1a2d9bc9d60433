/**
 * Two daemons (as two hosts would run them: separate state dirs, separate sockets) on one shared store: a
 * question raised through daemon A is listed and answered through daemon B's REST API, and A's call resumes.
 * On Redis and on Postgres, both real servers started here.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { socketFetch } from '../../src/surfaces/daemon/client.js';
import { runDaemon, type RunningDaemon } from '../../src/surfaces/daemon/daemon.js';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { openDaemonParts } from '../../src/surfaces/daemon/daemon-wiring.js';
import { fixtureEcho, stdioFixture } from '../helpers/fixture-servers.js';
import { useStoreServers } from '../helpers/store-servers.js';

// The caller's session, named on every request: a question is answered from the session that raised it.
const SESSION = { 'x-mcpx-session': 'ses-shared' };
const post = (body?: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...SESSION },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

async function startHost(storeUrl: string): Promise<RunningDaemon> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-host-'));
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: { fx: stdioFixture('dual-era'), old: stdioFixture('legacy-v1') } }));
  const env = { MCPX_STATE_DIR: join(dir, 'state'), PATH: process.env.PATH ?? '', MCPX_STORE_URL: storeUrl };
  return runDaemon({
    paths: daemonPaths(env, configPath),
    version: '0.1.0-test',
    openParts: () => openDaemonParts({ env, cwd: dir, configPath, version: '0.1.0-test' }),
    idleMs: 0,
  });
}

const servers = useStoreServers();

for (const [name, url] of [
  ['Redis', () => servers.redis.url],
  ['Postgres', () => servers.postgres.url],
] as const) {
  describe(`two daemons on one ${name} store`, () => {
    for (const [era, tool] of [
      ['modern', 'fx/ask_confirm'],
      ['legacy', 'old/ask_confirm'],
    ] as const) {
      it(`answers through daemon B a ${era} question raised through daemon A, and A's call resumes`, async () => {
        const [a, b] = await Promise.all([startHost(url()), startHost(url())]);
        const clientA = socketFetch(a.state.socket);
        const clientB = socketFetch(b.state.socket);
        try {
          const started = await clientA.fetch(`/v1/call/${tool}`, post({}));
          expect(started.status).toBe(202);
          const body = (await started.json()) as {
            inputRequired: { task: string; questions: Array<{ id: string; era: string }> };
          };
          const [question] = body.inputRequired.questions;
          expect(question!.era).toBe(era);
          const listed = (await (await clientB.fetch('/v1/elicit', { headers: SESSION })).json()) as {
            elicitations: Array<{ id: string }>;
          };
          expect(listed.elicitations.map((e) => e.id)).toContain(question!.id);
          expect((await clientB.fetch(`/v1/elicit/${question!.id}/accept`, post({ content: { confirm: true } }))).status).toBe(
            200,
          );
          const task = (await (
            await clientA.fetch(`/v1/tasks/${body.inputRequired.task}?wait=20`, { headers: SESSION })
          ).json()) as {
            task: { state: string; result: unknown };
          };
          expect(task.task.state).toBe('complete');
          expect(fixtureEcho(task.task.result as never).received.confirm?.action).toBe('accept');
          // Answered once: B refuses a second answer, as A would.
          expect((await clientA.fetch(`/v1/elicit/${question!.id}/decline`, post())).status).toBe(409);
        } finally {
          clientA.close();
          clientB.close();
          await Promise.all([a.stop(), b.stop()]);
        }
      });
    }
  });
}
