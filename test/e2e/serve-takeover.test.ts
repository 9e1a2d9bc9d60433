/**
 * Taking over a modern call whose `mcpx serve` is gone, with real processes. Its client went away (the call was let
 * go) or the serve was SIGKILLed mid-question (it still names itself the holder): the question stays answerable
 * from the CLI, and whoever asks for the result next resumes the call. Many asking at once: exactly one resumes it
 * (the upstream receives the answered call once) and every one of them gets its result; a running daemon asked
 * for it takes it over too. SQLite (pid liveness) and Redis (the serve's lease).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { CLI, ownedServe, serveSetup, textOf, type OwnedServe, type ServeSetup } from '../helpers/serve.js';

const SESSION = { MCPX_SESSION_ID: 'takeover-test' };
const callLog = join(mkdtempSync(join(tmpdir(), 'mcpx-takeover-')), 'calls.log');

/** How many times the upstream received the answered ask_form of this title. */
const resends = (title: string): number =>
  existsSync(callLog)
    ? readFileSync(callLog, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith(`ask_form ${title} `)).length
    : 0;

interface Asked {
  id: string;
  task: string;
  serve: OwnedServe;
}

async function ask(setup: ServeSetup, title: string): Promise<Asked> {
  const serve = await ownedServe(setup, SESSION);
  const first = textOf(await serve.client.callTool('ask_form', { title }));
  const id = /elc-[0-9a-f]{16}/.exec(first)?.[0];
  const task = /tsk-[0-9a-f]{16}/.exec(first)?.[0];
  expect(id, first).toBeDefined();
  expect(task, first).toBeDefined();
  return { id: id!, task: task!, serve };
}

const receivedOf = (printed: string): unknown =>
  (JSON.parse(printed) as { structuredContent?: { received?: { details?: unknown } } }).structuredContent?.received?.details;

/** Runs the built CLI with the setup's env changed (a daemon is used only where MCPX_DAEMON=inline is gone). */
function cliWith(
  setup: ServeSetup,
  env: Record<string, string>,
  args: string[],
): Promise<{ code: number; stdout: string; output: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { cwd: setup.dir, env, timeout: 30_000 }, (error, stdout, stderr) =>
      // stdout alone is the JSON; `task result` may say on stderr what it waits for.
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, output: stdout + stderr }),
    );
  });
}

function suite(name: string, extraEnv: () => Record<string, string>, options: { race: boolean; daemon: boolean }): void {
  describe(name, () => {
    let setup: ServeSetup;
    const serves: OwnedServe[] = [];
    beforeAll(() => {
      setup = serveSetup(
        { modern: { ...stdioFixture('dual-era', { MCPX_FIXTURE_CALL_LOG: callLog }), era: 'modern' } },
        { ...SESSION, ...extraEnv() },
      );
    });
    afterAll(async () => {
      await Promise.all(serves.map((s) => s.client.close()));
    });

    if (options.race)
      it('lets exactly one of many processes asking at once resume a call let go, and gives each of them its result', async () => {
        const title = `${name}-race`;
        const asked = await ask(setup, title);
        expect(await asked.serve.endStdin()).toBe(0);
        const answered = await setup.cli(['elicit', 'answer', asked.id, '{"repo":"acme/race"}']);
        expect(answered.code, answered.stderr).toBe(0);
        // Three serves of the session, connected before any of them is asked, then asked together with three CLIs.
        const others = await Promise.all([1, 2, 3].map(() => ownedServe(setup, SESSION)));
        serves.push(...others);
        const [viaServes, viaCli] = await Promise.all([
          Promise.all(others.map((o) => o.client.callTool('mcpx_call_result', { task: asked.task, waitSeconds: 20 }))),
          Promise.all([1, 2, 3].map(() => setup.cli(['task', 'result', asked.task, '--json', '--timeout', '20']))),
        ]);
        const want = { action: 'accept', content: { repo: 'acme/race' } };
        for (const result of viaServes) {
          expect(result.isError, textOf(result)).toBeFalsy();
          expect((result.structuredContent as { received?: { details?: unknown } }).received?.details).toMatchObject(want);
        }
        for (const result of viaCli) {
          expect(result.code, result.stderr).toBe(0);
          expect(receivedOf(result.stdout)).toMatchObject(want);
        }
        expect(resends(title)).toBe(1);
      });

    it('resumes a call whose serve was SIGKILLed mid-question: answered from the CLI, collected by mcpx task result', async () => {
      const title = `${name}-killed`;
      const asked = await ask(setup, title);
      await asked.serve.kill();
      const answered = await setup.cli(['elicit', 'answer', asked.id, '{"repo":"acme/after-kill"}']);
      expect(answered.code, answered.stderr).toBe(0);
      const result = await setup.cli(['task', 'result', asked.task, '--json', '--timeout', '20']);
      expect(result.code, result.stderr).toBe(0);
      expect(receivedOf(result.stdout)).toMatchObject({ action: 'accept', content: { repo: 'acme/after-kill' } });
      expect(resends(title)).toBe(1);
    });

    it('lets another serve collect a SIGKILLed serve’s call with mcpx_call_result, decline arriving as decline', async () => {
      const title = `${name}-killed-declined`;
      const asked = await ask(setup, title);
      await asked.serve.kill();
      const declined = await setup.cli(['elicit', 'decline', asked.id]);
      expect(declined.code, declined.stderr).toBe(0);
      const other = await ownedServe(setup, SESSION);
      serves.push(other);
      const collected = await other.client.callTool('mcpx_call_result', { task: asked.task, waitSeconds: 20 });
      expect(collected.isError, textOf(collected)).toBeFalsy();
      expect((collected.structuredContent as { received?: { details?: unknown } }).received?.details).toEqual({
        action: 'decline',
      });
      expect(resends(title)).toBe(1);
    });

    if (options.daemon)
      it('lets a running daemon take over a call let go by serve when mcpx task result asks it', async () => {
        const title = `${name}-daemon`;
        const asked = await ask(setup, title);
        expect(await asked.serve.endStdin()).toBe(0);
        const answered = await setup.cli(['elicit', 'answer', asked.id, '{"repo":"acme/daemon"}']);
        expect(answered.code, answered.stderr).toBe(0);
        const { MCPX_DAEMON: _inline, ...env } = setup.env;
        const started = await cliWith(setup, env, ['daemon', 'start', '--config', setup.configPath]);
        expect(started.code, started.output).toBe(0);
        try {
          const result = await cliWith(setup, env, [
            'task',
            'result',
            asked.task,
            '--json',
            '--timeout',
            '15',
            '--config',
            setup.configPath,
          ]);
          expect(result.code, result.output).toBe(0);
          expect(receivedOf(result.stdout)).toMatchObject({ action: 'accept', content: { repo: 'acme/daemon' } });
          expect(resends(title)).toBe(1);
        } finally {
          await cliWith(setup, env, ['daemon', 'stop', '--config', setup.configPath]);
        }
      });
  });
}

suite('sqlite', () => ({}), { race: true, daemon: true });

let redis: RedisServer | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());
// The race's claim is checked on Redis by the store compliance suite; here, the serve's lease judges it gone.
suite('redis', () => ({ MCPX_STORE_URL: redis!.url, MCPX_LEASE_MS: '60000' }), { race: false, daemon: false });
