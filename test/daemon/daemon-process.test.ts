import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/surfaces/cli/main.js';
import { ensureDaemon, stopDaemon } from '../../src/surfaces/daemon/client.js';
import { daemonPaths, isAlive, readDaemonState } from '../../src/surfaces/daemon/paths.js';
import { fixtureEcho, spawnLog, stdioFixture } from '../helpers/fixture-servers.js';
import { captureIO, type CliRun } from '../cli/helpers/run-cli.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The daemon as a source checkout runs it: node with the tsx loader on the CLI entry. */
const DAEMON_COMMAND = [
  process.execPath,
  '--import',
  pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href,
  join(root, 'src/surfaces/cli/entry.ts'),
  'daemon',
  'run',
];

function setup(serverEnv: Record<string, string> = {}): { env: Record<string, string>; cwd: string; configPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-daemon-proc-'));
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: { fx: stdioFixture('dual-era', serverEnv) } }));
  return {
    env: {
      MCPX_STATE_DIR: join(dir, 'state'),
      PATH: process.env.PATH ?? '',
      HOME: dir,
      MCPX_DAEMON_COMMAND: JSON.stringify(DAEMON_COMMAND),
    },
    cwd: dir,
    configPath,
  };
}

async function run(argv: string[], s: ReturnType<typeof setup>): Promise<CliRun> {
  const c = captureIO({ env: s.env, cwd: s.cwd });
  const code = await main(argv, c.io);
  return { code, stdout: c.out(), stderr: c.err() };
}

async function gone(pid: number, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  // A detached process gives no exit event to a non-parent: watch its pid.
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return !isAlive(pid);
}

describe('mcpx daemon (a real detached process)', () => {
  const started: Array<ReturnType<typeof setup>> = [];
  afterEach(async () => {
    for (const s of started.splice(0)) await stopDaemon(s.env, s.configPath).catch(() => undefined);
  });

  it('starts on first need (once, however many ask at the same time), reports status, serves calls and stops', async () => {
    const s = setup();
    started.push(s);
    const before = await run(['daemon', 'status', '--config', s.configPath], s);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain('not running');

    const [a, b] = await Promise.all([
      ensureDaemon(s.env, s.configPath, { cwd: s.cwd }),
      ensureDaemon(s.env, s.configPath, { cwd: s.cwd }),
    ]);
    expect(a.inline).toBe(false);
    expect(a.state?.pid).toBe(b.state?.pid);
    const pid = a.state!.pid;
    expect(pid).not.toBe(process.pid);

    const call = await a.fetch('/v1/call/fx/ask_confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(call.status).toBe(202);
    const body = (await call.json()) as { inputRequired: { task: string; questions: Array<{ id: string }> } };
    // Answered through the other client: any process can answer.
    expect(
      (
        await b.fetch(`/v1/elicit/${body.inputRequired.questions[0]!.id}/accept`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ content: { confirm: true } }),
        })
      ).status,
    ).toBe(200);
    const task = (await (await a.fetch(`/v1/tasks/${body.inputRequired.task}?wait=30`)).json()) as {
      task: { state: string; result: { structuredContent?: unknown } };
    };
    expect(fixtureEcho(task.task.result).received.confirm).toEqual({ action: 'accept', content: { confirm: true } });
    await a.close();
    await b.close();

    const status = await run(['daemon', 'status', '--json', '--config', s.configPath], s);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, pid, activeCalls: 0 });

    const again = await run(['daemon', 'start', '--config', s.configPath], s);
    expect(again.stdout).toContain(`running (pid ${pid})`);

    const stop = await run(['daemon', 'stop', '--config', s.configPath], s);
    expect(stop.stdout).toContain(`stopped (pid ${pid})`);
    expect(isAlive(pid)).toBe(false);
    expect(readDaemonState(daemonPaths(s.env, s.configPath))).toBeUndefined();
  });

  it('a cold `mcpx call` starts the server while the daemon loads (one spawn), and its question is durable (exit 75)', async () => {
    const spawns = spawnLog();
    const s = setup(spawns.env);
    started.push(s);
    const cold = await run(['call', 'fx.ask_confirm', '--config', s.configPath], s);
    expect(cold.code).toBe(75);
    // The daemon started the server before loading its modules, and its connection adopted that process.
    expect(readFileSync(daemonPaths(s.env, s.configPath).log, 'utf8')).toContain('started server "fx" early, for the first call');
    expect(spawns.count()).toBe(1);
    const id = /elc-[0-9a-f]+/.exec(cold.stdout)?.[0];
    const task = /tsk-[0-9a-f]+/.exec(cold.stdout)?.[0];
    expect(task, cold.stdout).toBeDefined();
    expect(id, cold.stdout).toBeDefined();
    // Another process answers; the call, held by the daemon, completes.
    const other = await ensureDaemon(s.env, s.configPath, { cwd: s.cwd });
    try {
      const answered = await other.fetch(`/v1/elicit/${id}/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: { confirm: true } }),
      });
      expect(answered.status).toBe(200);
    } finally {
      await other.close();
    }
    const result = await run(['task', 'result', task!, '--json', '--config', s.configPath], s);
    expect(result.code, result.stderr).toBe(0);
    expect(fixtureEcho(JSON.parse(result.stdout) as object).received.confirm).toEqual({
      action: 'accept',
      content: { confirm: true },
    });
    expect(spawns.count()).toBe(1);
  });

  it('starts with a loopback port that needs the bearer token from the state file', async () => {
    const s = setup();
    started.push(s);
    const start = await run(['daemon', 'start', '--port', '0', '--json', '--config', s.configPath], s);
    expect(start.code).toBe(0);
    const shown = JSON.parse(start.stdout) as { port: number; token?: string };
    expect(shown.token).toBeUndefined();
    const state = readDaemonState(daemonPaths(s.env, s.configPath))!;
    expect(state.port).toBe(shown.port);
    expect((await fetch(`http://127.0.0.1:${state.port}/v1/health`)).status).toBe(401);
    const ok = await fetch(`http://127.0.0.1:${state.port}/v1/health`, { headers: { authorization: `Bearer ${state.token}` } });
    expect(await ok.json()).toMatchObject({ pid: state.pid });
  });

  it('stops by itself after the idle timeout', async () => {
    const s = setup();
    started.push(s);
    const start = await run(['daemon', 'start', '--idle', '1', '--config', s.configPath], s);
    expect(start.code).toBe(0);
    const pid = readDaemonState(daemonPaths(s.env, s.configPath))!.pid;
    expect(await gone(pid)).toBe(true);
  });

  it('runs inline when no daemon can start, and says the call cannot outlive the command', async () => {
    const s = setup();
    const env = { ...s.env, MCPX_DAEMON_COMMAND: JSON.stringify([join(s.cwd, 'no-such-program')]) };
    const client = await ensureDaemon(env, s.configPath, { cwd: s.cwd });
    expect(client.inline).toBe(true);
    const call = await client.fetch('/v1/call/fx/ask_confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(call.status).toBe(202);
    const body = (await call.json()) as { inputRequired: { text: string } };
    expect(body.inputRequired.text).toContain('cannot outlive this command');
    await client.close();
  });

  it('rejects usage mistakes with exit 2', async () => {
    const s = setup();
    expect((await run(['daemon'], s)).code).toBe(2);
    expect((await run(['daemon', 'restart'], s)).code).toBe(2);
    expect((await run(['daemon', 'start', '--idle', 'soon'], s)).code).toBe(2);
  });
});
