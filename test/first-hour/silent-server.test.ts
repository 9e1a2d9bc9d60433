/**
 * A server that never answers: connecting is bounded by the server's `timeoutMs` (10 s by default, probe and
 * `initialize` together), the failure names the server and the bound, `mcpx list` still lists the others and exits
 * 1, and a daemon waiting on such a server stops at once, taking the server's process with it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openTerminal } from '../cli/helpers/tmux.js';
import { CLI, runCli, type CliRun } from '../helpers/cli-run.js';
import { processAlive as alive } from '../../src/local/process-alive.js';

const root = resolve(import.meta.dirname, '..', '..');
const silent = join(root, 'test', 'fixtures', 'servers', 'silent.mjs');
const healthy = join(root, 'test', 'fixtures', 'servers', 'progress.mjs');

interface Run extends CliRun {
  ms: number;
}

const dir = mkdtempSync(join(tmpdir(), 'mcpx-silent-'));
const pidFile = join(dir, 'silent.pids');
writeFileSync(
  join(dir, 'mcpx.json'),
  JSON.stringify({
    mcpServers: {
      silent: { command: process.execPath, args: [silent], timeoutMs: 1500 },
      healthy: { command: process.execPath, args: [healthy] },
    },
  }),
);
// Waits far longer than the test: only stopping the daemon ends its connect.
writeFileSync(
  join(dir, 'patient.json'),
  JSON.stringify({
    mcpServers: {
      patient: { command: process.execPath, args: [silent], timeoutMs: 600_000, env: { SILENT_PID_FILE: pidFile } },
    },
  }),
);
const patient = ['--config', join(dir, 'patient.json')];
const baseEnv = {
  PATH: process.env.PATH ?? '',
  MCPX_STATE_DIR: join(dir, 'state'),
  MCPX_CONFIG_DIR: join(dir, 'config'),
  HOME: dir,
};

async function run(args: string[], extra: Record<string, string> = {}): Promise<Run> {
  const started = Date.now();
  const ran = await runCli(args, { cwd: dir, env: { ...baseEnv, ...extra }, timeoutMs: 120_000 });
  return { ...ran, ms: Date.now() - started };
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

afterAll(async () => {
  await run(['daemon', 'stop', ...patient]);
  if (existsSync(pidFile))
    for (const pid of readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number))
      if (alive(pid)) process.kill(pid, 'SIGKILL');
});

describe('a server that never answers', () => {
  it('mcpx list gives up on it within its timeoutMs, names it and the bound, lists the others, exits 1', async () => {
    const listed = await run(['list'], { MCPX_DAEMON: 'inline' });
    expect(listed.ms).toBeLessThan(20_000);
    expect(listed.code, listed.stderr).toBe(1);
    expect(listed.stdout).toMatch(/healthy\s+connected/);
    expect(listed.stdout).toMatch(/silent\s+failed: [^\n]*"silent"[^\n]*1500 ms[^\n]*timeoutMs/);
    expect(listed.stderr).toContain('silent');
  }, 60_000);

  it('on a terminal, mcpx list says after a second which server it waits for; piped, it says nothing of it', async () => {
    const env = Object.entries({ ...baseEnv, MCPX_DAEMON: 'inline' }).map(([k, v]) => `${k}=${v}`);
    const command = ['env', ...env, process.execPath, CLI, 'list'];
    const terminal = openTerminal(['sh', '-c', `"$@"; echo "EXIT=$?"`, 'sh', ...command], { cwd: dir });
    try {
      const done = await terminal.waitFor('EXIT=');
      expect(done).toContain('waiting for silent…');
      expect(done).toContain('EXIT=1');
    } finally {
      terminal.close();
    }
    const piped = await run(['list'], { MCPX_DAEMON: 'inline' });
    expect(piped.stderr).not.toContain('waiting for');
  }, 60_000);

  it('mcpx call silent.x fails within its timeoutMs, naming the server', async () => {
    const called = await run(['call', 'silent.x'], { MCPX_DAEMON: 'inline' });
    expect(called.ms).toBeLessThan(20_000);
    expect(called.code).not.toBe(0);
    expect(called.stderr).toMatch(/"silent"[^\n]*1500 ms/);
  }, 60_000);

  it('mcpx daemon stop stops a daemon waiting on it, and the server process goes too', async () => {
    const started = await run(['daemon', 'start', ...patient]);
    expect(started.code, started.stderr).toBe(0);
    const pending = spawn(process.execPath, [CLI, 'call', 'patient.x', ...patient], { cwd: dir, env: baseEnv, stdio: 'ignore' });
    try {
      expect(await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 20_000)).toBe(true);
      const serverPids = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
      const stopped = await run(['daemon', 'stop', '--json', ...patient]);
      expect(stopped.code, stopped.stderr).toBe(0);
      const { stopped: wasStopped, pid } = JSON.parse(stopped.stdout) as { stopped: boolean; pid: number };
      expect(wasStopped).toBe(true);
      expect(alive(pid)).toBe(false);
      // Nothing respawned during shutdown, and what was spawned is gone.
      expect(await until(() => serverPids.every((p) => !alive(p)), 5_000)).toBe(true);
      const after = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
      expect(after.filter((p) => alive(p))).toEqual([]);
    } finally {
      pending.kill('SIGKILL');
    }
  }, 90_000);
});
