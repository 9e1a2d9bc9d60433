/**
 * MCPX_STORE_URL=postgres://… for the CLI and the daemon, on a real Postgres cluster the test creates: a
 * question raised through the daemon is listed and answered by the built CLI in another process, the
 * daemon's call completes, and the task record is in Postgres for any other process to read.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/broker/index.js';
import { socketFetch } from '../../src/surfaces/daemon/client.js';
import { runDaemon } from '../../src/surfaces/daemon/daemon.js';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { openDaemonParts } from '../../src/surfaces/daemon/daemon-wiring.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import { fixtureEcho, stdioFixture } from '../helpers/fixture-servers.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';

const run = promisify(execFile);
const cliPath = join(dirname(fileURLToPath(import.meta.url)), '../../dist/cli.js');
const post = (body?: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

let postgres: PostgresServer;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => postgres?.stop());

describe('MCPX_STORE_URL=postgres://', () => {
  it('keeps a daemon call question in Postgres, answerable by the CLI in another process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-pg-daemon-'));
    const configPath = join(dir, 'mcpx.json');
    writeFileSync(configPath, JSON.stringify({ mcpServers: { fx: stdioFixture('dual-era') } }));
    const env = { MCPX_STATE_DIR: join(dir, 'state'), PATH: process.env.PATH ?? '', MCPX_STORE_URL: postgres.url };
    const daemon = await runDaemon({
      paths: daemonPaths(env, configPath),
      version: '0.1.0-test',
      openParts: () => openDaemonParts({ env, cwd: dir, configPath, version: '0.1.0-test' }),
      idleMs: 0,
    });
    const client = socketFetch(daemon.state.socket);
    try {
      // The call names its session; the other process answers from the same one (a caller is bound to its session).
      const asked = post({});
      asked.headers = { ...(asked.headers as Record<string, string>), 'x-mcpx-session': 'ses-pg' };
      const body = (await (await client.fetch('/v1/call/fx/ask_confirm', asked)).json()) as {
        inputRequired: { task: string; questions: Array<{ id: string }> };
      };
      const id = body.inputRequired.questions[0]!.id;
      expect(existsSync(join(env.MCPX_STATE_DIR, 'mcpx.sqlite'))).toBe(false);
      // Another process with only the URL (a different state dir: no daemon to find) reads and answers it.
      const other = {
        ...process.env,
        MCPX_STATE_DIR: join(dir, 'elsewhere'),
        MCPX_STORE_URL: postgres.url,
        MCPX_SESSION_ID: 'ses-pg',
      };
      const listed = await run(process.execPath, [cliPath, 'elicit', 'list', '--json'], { env: other });
      expect((JSON.parse(listed.stdout) as { elicitations: Array<{ id: string }> }).elicitations.map((e) => e.id)).toContain(id);
      await run(process.execPath, [cliPath, 'elicit', 'decline', id], { env: other });
      const task = (await (
        await client.fetch(`/v1/tasks/${body.inputRequired.task}?wait=20`, { headers: { 'x-mcpx-session': 'ses-pg' } })
      ).json()) as {
        task: { state: string; result: unknown };
      };
      expect(fixtureEcho(task.task.result as never).received.confirm?.action).toBe('decline');
      const store = await openPostgresStore(postgres.url);
      expect(await createTaskStore(store.keyv).get(body.inputRequired.task)).toMatchObject({ state: 'complete' });
      await store.close();
    } finally {
      client.close();
      await daemon.stop();
    }
  });

  it('refuses a store URL it does not know, saying which it does', async () => {
    const failed = await run(process.execPath, [cliPath, 'elicit', 'list'], {
      env: { ...process.env, MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-pg-bad-')), MCPX_STORE_URL: 'mysql://x' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect((failed as { code: number }).code).not.toBe(0);
    expect((failed as { stderr: string }).stderr).toMatch(/postgres:\/\/.*CONFIG_INVALID/);
  });
});
