/**
 * A holder that stalls past its own lease (a long pause, a loaded host) is not dead. Its late renewal re-acquires
 * the lease when nobody took it meanwhile (compare on the owner), and is refused for good once another process took
 * it (a daemon's sweep, or whoever takes one of its calls over: `canTakeOver` seizes the lease first). Either way
 * exactly one receipt of a legacy answer stands. Real redis-server and Postgres; the stall is a blocked event loop
 * (the process really stops), and every wait is on a condition in the store, never on a clock.
 */
import { hostname } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { openStoreUrl } from '../../src/broker/store-url.js';
import type { BrokerStore } from '../../src/broker/types.js';
import { openReceipts } from '../../src/tasks/delivery.js';
import { canTakeOver, keepLease, leaseOf } from '../../src/tasks/handoff.js';
import { openLeases, type Leases } from '../../src/tasks/leases.js';
import type { TaskRecord } from '../../src/tasks/types.js';
import { until } from '../helpers/daemon-fleet.js';
import { useStoreServers } from '../helpers/store-servers.js';

const servers = useStoreServers();

const TTL = 300;
const unique = (): string => Math.random().toString(16).slice(2, 10);
const newInstance = (): string => `${hostname()}:${process.pid}:${unique()}`;

/** Blocks this process (timers, I/O, everything) until the store says the lease lapsed: a stall past it. */
async function stallPast(leases: Leases, name: string): Promise<void> {
  const { leases: rows } = await leases.list();
  const expiresAt = rows.find((l) => l.name === name)!.expiresAt;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const { now } = await leases.list();
    if (now > expiresAt) return;
    // Synchronous: no renewal timer can run meanwhile, as in a stalled process.
    Atomics.wait(pause, 0, 0, 50);
  }
}

const lapsed = async (leases: Leases, name: string): Promise<boolean> => {
  const { now, leases: rows } = await leases.list();
  return (rows.find((l) => l.name === name)?.expiresAt ?? 0) < now;
};

const ownerOf = async (leases: Leases, name: string): Promise<string | undefined> =>
  (await leases.list()).leases.find((l) => l.name === name)?.owner;

/** A modern call held by a serve, waiting at a round (so another process may take it over once the serve is gone). */
function heldTask(holder: string, instance: string): TaskRecord {
  const at = Date.now();
  return {
    id: `tsk-${unique()}${unique()}`,
    callId: 'cal-0000000000000001',
    server: 'modern',
    tool: 'ask_form',
    arguments: {},
    session: 'lease',
    state: 'input-required',
    era: 'modern',
    questions: [],
    waitingOn: [],
    continuation: { callId: 'cal-0000000000000001', server: 'modern', tool: 'ask_form', arguments: {}, questions: [] },
    pid: process.pid,
    holder,
    instance,
    host: hostname(),
    createdAt: at,
    updatedAt: at,
  } as unknown as TaskRecord;
}

for (const [name, url] of [
  ['Redis', () => servers.redis.url],
  ['Postgres', () => servers.postgres.url],
] as const) {
  describe(`a lease on ${name}`, () => {
    const opened: BrokerStore[] = [];
    const open = async (): Promise<{ store: BrokerStore; leases: Leases }> => {
      const store = await openStoreUrl(url());
      opened.push(store);
      return { store, leases: openLeases(store)! };
    };
    afterAll(async () => {
      await Promise.all(opened.map((s) => s.close()));
    });

    it('is re-acquired by its owner after it lapsed when nobody took it, and never once another took it', async () => {
      const { leases } = await open();
      const { leases: other } = await open();
      const lease = `holder:serve-${unique()}`;
      const owner = newInstance();
      expect(await leases.acquire(lease, owner, TTL)).toBe(true);
      await until('the lease lapses', async () => ((await lapsed(leases, lease)) ? true : undefined));
      expect(await leases.renew(lease, owner, TTL)).toBe(true);
      expect(await ownerOf(leases, lease)).toBe(owner);
      // Held again, unexpired: nobody may seize it.
      expect(await other.seize(lease, owner)).toBe(false);

      await until('the lease lapses again', async () => ((await lapsed(leases, lease)) ? true : undefined));
      expect(await other.seize(lease, owner)).toBe(true);
      expect(await leases.renew(lease, owner, TTL)).toBe(false);
      expect(await ownerOf(leases, lease)).not.toBe(owner);

      // Taken by a survivor's acquire (a daemon's sweep): lost for good too.
      const swept = `holder:cfg-${unique()}`;
      expect(await leases.acquire(swept, owner, TTL)).toBe(true);
      await until('the lease lapses', async () => ((await lapsed(leases, swept)) ? true : undefined));
      expect(await other.acquire(swept, newInstance(), 60_000)).toBe(true);
      expect(await leases.renew(swept, owner, TTL)).toBe(false);
    }, 30_000);

    it('keeps being held by a process that stalled past it, and is lost (onLost) once another took it', async () => {
      const { leases } = await open();
      const { leases: other } = await open();
      const holder = `serve-${unique()}`;
      const instance = newInstance();
      let lost = 0;
      let renew: Leases['renew'] = (...args) => leases.renew(...args);
      const holding: Leases = { ...leases, renew: (...args) => renew(...args) };
      const kept = await keepLease(holding, holder, TTL, instance, () => lost++);
      try {
        await stallPast(leases, leaseOf(holder));
        // The renewal after the stall re-acquires it: the holder is alive again for everyone.
        await until('the lease is renewed after the stall', async () =>
          (await lapsed(other, leaseOf(holder))) ? undefined : true,
        );
        expect(await ownerOf(other, leaseOf(holder))).toBe(instance);
        expect(await canTakeOver(heldTask(holder, instance), other)).toBe(false);
        expect(lost).toBe(0);

        // Stalled again, and this time another process takes a call over meanwhile: the lease stays lost. The
        // stall is the holder's renewals held back (a blocked loop would also block the taker here).
        let resume!: () => void;
        const stalled = new Promise<void>((done) => (resume = done));
        renew = async (...args) => {
          await stalled;
          return leases.renew(...args);
        };
        await until('the lease lapses', async () => ((await lapsed(other, leaseOf(holder))) ? true : undefined));
        expect(await canTakeOver(heldTask(holder, instance), other)).toBe(true);
        resume();
        await until('the holder hears its lease was taken', async () => (lost > 0 ? true : undefined));
        expect(lost).toBe(1);
        expect(await ownerOf(other, leaseOf(holder))).not.toBe(instance);
      } finally {
        await kept.stop();
      }
    }, 30_000);

    it('lets exactly one receipt of a legacy answer stand whichever of holder and answerer acts first after a lapse', async () => {
      const { store, leases } = await open();
      const { store: answererStore } = await open();
      const holderReceipts = openReceipts(store);
      const answerer = openReceipts(answererStore);
      const holder = `serve-${unique()}`;
      const instance = newInstance();
      const task = heldTask(holder, instance);
      expect(await leases.acquire(leaseOf(holder), instance, TTL)).toBe(true);

      // The answerer judges the stalled holder first: undelivered stands, the holder's re-acquired lease delivers nothing.
      await until('the lease lapses', async () => ((await lapsed(leases, leaseOf(holder))) ? true : undefined));
      const first = `elc-${unique()}${unique()}`;
      expect(await answerer.refuse(first, task)).toBe(true);
      expect(await leases.renew(leaseOf(holder), instance, TTL)).toBe(true);
      expect(await holderReceipts.deliver(first, task)).toBe(false);
      expect(await holderReceipts.read(first)).toBe('undelivered');

      // The holder comes back first: its renewed lease fences the answerer out, delivered stands.
      await until('the lease lapses', async () => ((await lapsed(leases, leaseOf(holder))) ? true : undefined));
      const second = `elc-${unique()}${unique()}`;
      expect(await leases.renew(leaseOf(holder), instance, 60_000)).toBe(true);
      expect(await answerer.refuse(second, task)).toBe(false);
      expect(await holderReceipts.deliver(second, task)).toBe(true);
      expect(await answerer.read(second)).toBe('delivered');
    }, 30_000);
  });
}
