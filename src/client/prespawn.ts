/**
 * A stdio server started before its connection is asked for: a cold `mcpx call` starts the daemon, which starts
 * the call's server first and loads its own modules while the server boots (about 0.4 s each for a Node server).
 * The connection adopts the early process only when it would spawn exactly the same one (command, args, env, cwd);
 * otherwise the early one is stopped and a fresh one started. Light on purpose: no MCP SDK here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { StdioServerConfig } from '../config/schema.js';
import type { AskedValues } from './credentials.js';
import { filled } from './filled.js';

/** What a stdio server's process is started with. */
export interface StdioSpawn {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** The SDK's transport adds these from its own process's environment (`getDefaultEnvironment`, POSIX list). */
const INHERITED = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/** The one place the spawn of a stdio server is described: the connection uses it, and so does an early start. */
export function stdioSpawnOf(
  server: Pick<StdioServerConfig, 'command' | 'args' | 'env' | 'cwd'>,
  env: Record<string, string | undefined>,
  cwd: string,
  asked?: AskedValues,
): StdioSpawn {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') base[k] = v;
  return {
    command: server.command,
    args: server.args ?? [],
    env: { ...base, ...filled(server.env, asked?.env) },
    cwd: server.cwd ?? cwd,
  };
}

function keyOf(spec: StdioSpawn): string {
  const env = Object.keys(spec.env)
    .sort()
    .map((k) => [k, spec.env[k]]);
  return JSON.stringify([spec.command, spec.args, env, spec.cwd]);
}

interface Early {
  child: ChildProcess;
  failed: boolean;
  timer: NodeJS.Timeout;
}

const early = new Map<string, Early>();

function stop(entry: Early): void {
  clearTimeout(entry.timer);
  entry.child.stdin?.end();
  entry.child.kill('SIGTERM');
}

/**
 * Starts the server now, for a connection that will ask for the same spawn within `claimWithinMs`; unclaimed by
 * then, it is stopped. `inherited` is the environment the SDK's transport would add its defaults from.
 * Nothing is read from the process until it is adopted: its output waits in the pipe.
 */
export function startEarly(spec: StdioSpawn, inherited: Record<string, string | undefined>, claimWithinMs = 30_000): void {
  const key = keyOf(spec);
  if (early.has(key)) return;
  const env: Record<string, string> = {};
  for (const k of INHERITED) {
    const v = inherited[k];
    if (v !== undefined && !v.startsWith('()')) env[k] = v;
  }
  const child = spawn(spec.command, spec.args, {
    env: { ...env, ...spec.env },
    cwd: spec.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    shell: false,
  });
  const entry: Early = {
    child,
    failed: false,
    timer: setTimeout(() => {
      if (early.get(key) === entry) early.delete(key);
      stop(entry);
    }, claimWithinMs),
  };
  entry.timer.unref();
  // A command that cannot start fails again when the connection spawns it itself, with the error it reports.
  child.once('error', () => (entry.failed = true));
  child.once('exit', () => (entry.failed = true));
  // Until adopted, it must not keep a daemon that failed to start alive.
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) {
    stream?.on('error', () => (entry.failed = true));
    (stream as { unref?: () => void } | null)?.unref?.();
  }
  early.set(key, entry);
}

/** The early process for exactly this spawn, if one is still running; it is the caller's from now on. */
export function takeEarly(spec: StdioSpawn): ChildProcess | undefined {
  const key = keyOf(spec);
  const entry = early.get(key);
  if (!entry) return undefined;
  early.delete(key);
  clearTimeout(entry.timer);
  if (entry.failed || entry.child.exitCode !== null || entry.child.signalCode !== null) {
    stop(entry);
    return undefined;
  }
  entry.child.ref();
  for (const stream of [entry.child.stdin, entry.child.stdout, entry.child.stderr])
    (stream as { ref?: () => void } | null)?.ref?.();
  return entry.child;
}

/** Stops every early process nobody adopted (the daemon is stopping, or never started). */
export function stopEarly(): void {
  for (const entry of early.values()) stop(entry);
  early.clear();
}
