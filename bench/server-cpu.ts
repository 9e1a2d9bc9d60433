import { readdirSync, readFileSync } from 'node:fs';

/** CPU (user + system, µs) of the server listening on `port` and every process it forked (Postgres backends). */
export function serverCpu(port: number | undefined): number {
  if (port === undefined) return 0;
  const procs = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  const stat = new Map<string, { ppid: string; cpu: number }>();
  let root: string | undefined;
  for (const pid of procs) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      stat.set(pid, { ppid: fields[1]!, cpu: Number(fields[11]) + Number(fields[12]) });
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      // Postgres: `postgres -D … -p <port>`; redis-server retitles itself `redis-server 127.0.0.1:<port>`.
      if (cmd.some((a, i) => (a === '-p' && cmd[i + 1] === String(port)) || a.endsWith(`:${port}`))) root = pid;
    } catch {
      // gone meanwhile
    }
  }
  if (!root) return 0;
  let total = 0;
  for (const [pid, s] of stat) if (pid === root || s.ppid === root) total += s.cpu;
  return (total * 1_000_000) / 100; // clock ticks (USER_HZ 100) to µs
}
