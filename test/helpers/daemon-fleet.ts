/**
 * Daemons as several hosts run them, on one shared store: each a real `node dist/cli.js daemon run` process with
 * its own config file, state dir and socket (so its own holder), in a process group of its own so SIGKILL takes
 * it and its server processes down together, as a host dying would. Restarting one starts the same host again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { socketFetch } from '../../src/surfaces/daemon/client.js';
import type { DaemonResponse } from '../../src/surfaces/backend/rest-backend.js';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { stdioFixture } from './fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
export const CLI = join(root, 'dist', 'cli.js');

export interface FleetDaemon {
  name: string;
  env: Record<string, string>;
  configPath: string;
  cwd: string;
  /** The running process's pid (undefined while down). */
  pid: number | undefined;
  /** Its daemon log (stderr) since the fleet started, every start. */
  log(): string;
  start(): Promise<void>;
  /** SIGKILL to the daemon and its server processes: no cleanup runs. */
  kill(): Promise<void>;
  /** A graceful stop (SIGTERM). */
  stop(): Promise<void>;
  /** A request over its unix socket (a fresh connection each time, so a dead daemon fails fast). */
  fetch(path: string, init?: RequestInit): Promise<DaemonResponse>;
}

/** Both eras by default: `modern` (the v2 dual-era fixture, pinned modern) and `legacy` (the v1 SDK fixture), over stdio. */
const STDIO_SERVERS = { modern: { ...stdioFixture('dual-era'), era: 'modern' }, legacy: stdioFixture('legacy-v1') };

export function fleetDaemon(
  name: string,
  storeUrl: string,
  extraEnv: Record<string, string> = {},
  servers: Record<string, unknown> = STDIO_SERVERS,
): FleetDaemon {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsup)`);
  const dir = mkdtempSync(join(tmpdir(), `mcpx-host-${name}-`));
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: servers }));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    MCPX_STATE_DIR: join(dir, 'state'),
    MCPX_CONFIG_DIR: join(dir, 'config'),
    MCPX_STORE_URL: storeUrl,
    ...extraEnv,
  };
  const socket = daemonPaths(env, configPath).socket;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let log = '';
  const daemon: FleetDaemon = {
    name,
    env,
    configPath,
    cwd: dir,
    pid: undefined,
    log: () => log,
    async start() {
      if (child) throw new Error(`daemon ${name} already runs`);
      const proc = spawn(process.execPath, [CLI, 'daemon', 'run', '--config', configPath, '--idle', '0'], {
        cwd: dir,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      exited = new Promise((done) =>
        proc.once('exit', () => {
          // Down, whether killed here or exited on its own (a daemon whose lease was taken exits).
          if (child === proc) {
            child = undefined;
            daemon.pid = undefined;
          }
          done();
        }),
      );
      proc.stderr!.on('data', (d: Buffer) => (log += d.toString()));
      const first = await new Promise<string>((done, fail) => {
        let out = '';
        proc.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) done(out.split('\n')[0]!);
        });
        proc.once('exit', (code) => fail(new Error(`daemon ${name} exited (${code}) before it was ready:\n${log}`)));
      });
      if (!first.startsWith('ready ')) throw new Error(`daemon ${name} did not start: ${first}\n${log}`);
      daemon.pid = proc.pid;
    },
    async kill() {
      const proc = child;
      if (!proc) return;
      killGroup(proc.pid!);
      await exited;
    },
    async stop() {
      const proc = child;
      if (!proc) return;
      proc.kill('SIGTERM');
      await exited;
      // Its server processes share the group; a graceful stop closed them, this only makes sure.
      killGroup(proc.pid!);
    },
    async fetch(path, init) {
      const client = socketFetch(socket);
      try {
        return await client.fetch(path, init);
      } finally {
        client.close();
      }
    },
  };
  return daemon;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export const post = (body?: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built CLI as a separate process, with a daemon's env (its store; `--config` picks its daemon). */
export function cli(daemon: FleetDaemon, args: string[]): Promise<CliRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: daemon.cwd,
      env: daemon.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => done({ code: code ?? 1, stdout, stderr }));
  });
}

/** Re-checks `probe` until it returns a value (a condition over the store, not a clock): fails after `limitMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, limitMs = 60_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
