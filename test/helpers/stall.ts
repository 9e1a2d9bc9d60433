/** A process that stalls past its lease on a shared store, as a paused laptop or a long GC does. */
import { expect } from 'vitest';
import type { Leases } from '../../src/tasks/leases.js';
import { until } from './daemon-fleet.js';

/**
 * Stops `pid` (SIGSTOP) until its lease has lapsed on the store's clock, takes the lease as a process taking over
 * its calls does, then lets it run on (SIGCONT, whatever happened), to find out what it lost.
 */
export async function stallPastLease(pid: number, leases: Leases, lease: { name: string; owner: string }): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  try {
    await until('the lease lapses on the store clock', async () => {
      const { now, leases: rows } = await leases.list();
      return (rows.find((l) => l.name === lease.name)?.expiresAt ?? 0) < now ? true : undefined;
    });
    expect(await leases.seize(lease.name, lease.owner)).toBe(true);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}
