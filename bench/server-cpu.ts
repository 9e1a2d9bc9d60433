import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The server listening on `port` and every process it forked (Postgres backends), with their CPU (clock ticks). */
function serverProcesses(port: number): Array<{ pid: string; ticks: number }> {
  const procs = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  const stat = new Map<string, { ppid: string; ticks: number }>();
  let root: string | undefined;
  for (const pid of procs) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      stat.set(pid, { ppid: fields[1]!, ticks: Number(fields[11]) + Number(fields[12]) });
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      // Postgres: `postgres -D … -p <port>`; redis-server retitles itself `redis-server 127.0.0.1:<port>`.
      if (cmd.some((a, i) => (a === '-p' && cmd[i + 1] === String(port)) || a.endsWith(`:${port}`))) root = pid;
    } catch {
      // gone meanwhile
    }
  }
  if (!root) return [];
  return [...stat].filter(([pid, s]) => pid === root || s.ppid === root).map(([pid, s]) => ({ pid, ticks: s.ticks }));
}

/** CPU (user + system, µs) of the server listening on `port` and every process it forked. */
export function serverCpu(port: number | undefined): number {
  if (port === undefined) return 0;
  const ticks = serverProcesses(port).reduce((sum, p) => sum + p.ticks, 0);
  return (ticks * 1_000_000) / 100; // clock ticks (USER_HZ 100) to µs
}

/**
 * Pins this process and the server on `port` (all their threads) to the vCPUs given, `taskset` syntax ("0", "0-1");
 * false where that cannot be done (not Linux, no taskset, one vCPU). Where each runs decides what a loopback round
 * trip costs on a VM whose idle vCPUs halt: a hand-off to a halted vCPU has to wake it.
 */
export function place(port: number, self: string, server: string): boolean {
  if (process.platform !== 'linux' || cpus().length < 2) return false;
  const pin = (cpus: string, pid: string): boolean =>
    spawnSync('taskset', ['-a', '-p', '-c', cpus, pid], { stdio: 'ignore' }).status === 0;
  const servers = serverProcesses(port);
  return servers.length > 0 && pin(self, String(process.pid)) && servers.every((p) => pin(server, p.pid));
}

/** Every vCPU, for `place` to undo a pinning (all of them, not the affinity this process has now). */
export const allCpus = (): string => `0-${cpus().length - 1}`;
