/**
 * A legacy answer whose answerer died after offering it (a daemon SIGKILLed before it replied): the client sends the
 * same answer again through another answerer. The retry must learn the first offer's fate as its own, delivered
 * or ELICITATION_ABANDONED, never ELICITATION_ALREADY_ANSWERED for an answer that was then never recorded (the chaos
 * test's 409 on Redis). The race is laid out step by step: the first offer is written and left unconfirmed, the
 * holder is dead (its lease let go; its pid gone on SQLite) or alive (it takes the offer), then the retry comes.
 * Every broker here is its own handle on one real store, as processes are.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBroker, type StoreBroker } from '../../src/broker/broker.js';
import { openStoreUrl } from '../../src/broker/store-url.js';
import type { BrokerStore, RespondInput } from '../../src/broker/types.js';
import { isMcpxError } from '../../src/errors.js';
import { heldResponder, openReceipts, takeOffers } from '../../src/tasks/delivery.js';
import { leaseOf } from '../../src/tasks/handoff.js';
import { openHeldQuestion } from '../helpers/held-question.js';
import { useStoreServers } from '../helpers/store-servers.js';

const servers = useStoreServers();
const sqliteUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'mcpx-retry-')), 'shared.sqlite')}`;

/** The pid of a process of this host that has exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;
/** The answering client: its pid rides along, as the CLI's does (X-Mcpx-Pid). */
const CLIENT_PID = 424_242;

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return isMcpxError(error) ? error.code : String(error);
  }
  return 'resolved';
}

for (const [name, url] of [
  ['SQLite', () => sqliteUrl],
  ['Redis', () => servers.redis.url],
  ['Postgres', () => servers.postgres.url],
] as const) {
  describe(`a retried legacy answer on ${name}`, () => {
    const opened: BrokerStore[] = [];
    const open = async (): Promise<StoreBroker> => {
      const store = await openStoreUrl(url());
      opened.push(store);
      return createBroker({ store, session: 'retry' });
    };
    afterAll(async () => {
      await Promise.all(opened.map((s) => s.close()));
    });

    /** A held legacy question: the holder's task names it (instance and lease on Redis/Postgres, pid on SQLite). */
    async function held(alive: boolean) {
      const holder = await open();
      const { id, task, holderName, instance, leases } = await openHeldQuestion(holder, {
        session: 'retry',
        leaseMs: 60_000,
        pid: (leases) => (alive || leases ? process.pid : deadPid()),
      });
      const die = async (): Promise<void> => {
        if (leases) await leases.lapse(leaseOf(holderName), instance);
      };
      return { holder, task, id, die };
    }

    const input = (id: string, repo: string, pid = CLIENT_PID): RespondInput => ({
      id,
      action: 'accept',
      content: { repo },
      by: 'http',
      pid,
    });
    const answeredEvents = async (broker: StoreBroker, id: string): Promise<number> =>
      (await broker.store.readEvents()).filter((e) => e.kind === 'elicit.answered' && e.elicit === id).length;

    it('after the holder died: the retry is refused as abandoned, and the answer is never recorded', async () => {
      const { id, die } = await held(false);
      // The first answerer writes its offer, then dies before it could confirm or reply.
      const first = await open();
      await first.respond({ ...input(id, 'me/one'), offer: true });
      await die();

      const retrying = await open();
      expect(await refusal(heldResponder(retrying, 1000)(input(id, 'me/one')))).toBe('ELICITATION_ABANDONED');
      expect((await retrying.get(id))?.state).toBe('abandoned');
      expect(await answeredEvents(retrying, id)).toBe(0);
      // Another answerer, later: refused the same way.
      expect(await refusal(heldResponder(await open(), 1000)(input(id, 'me/two', CLIENT_PID + 1)))).toBe('ELICITATION_ABANDONED');
    });

    it('after the holder died, a different answer is refused as abandoned too, not as a second answer', async () => {
      const { id, die } = await held(false);
      await (await open()).respond({ ...input(id, 'me/one'), offer: true });
      await die();
      expect(await refusal(heldResponder(await open(), 1000)(input(id, 'me/other', CLIENT_PID + 1)))).toBe(
        'ELICITATION_ABANDONED',
      );
    });

    it('while the holder lives: the retry gets the delivery of its first offer, once, and another answer is refused', async () => {
      const { holder, task, id } = await held(true);
      await (await open()).respond({ ...input(id, 'me/one'), offer: true });
      const retrying = await open();
      // The retry arrives while the offer still stands; the holder takes it afterwards.
      const retried = heldResponder(retrying, 1000)(input(id, 'me/one'));
      const stop = new AbortController();
      const taking = takeOffers(openReceipts(holder.store), task, id, stop.signal);
      try {
        const { answer, delivery } = await retried;
        expect(delivery).toBe('delivered');
        expect(answer.content).toEqual({ repo: 'me/one' });
        expect((await holder.awaitAnswer(id)).content).toEqual({ repo: 'me/one' });
      } finally {
        stop.abort();
        await taking;
      }
      // Again once delivered: still the same delivery; another answerer's answer is a second answer.
      expect((await heldResponder(await open(), 1000)(input(id, 'me/one'))).delivery).toBe('delivered');
      expect(await refusal(heldResponder(await open(), 1000)(input(id, 'me/two', CLIENT_PID + 1)))).toBe(
        'ELICITATION_ALREADY_ANSWERED',
      );
      expect(await answeredEvents(retrying, id)).toBe(1);
    });
  });
}
