/**
 * A wait on a question this broker opened skips its read, and reads once after 50 ms if no answer came (so a store
 * that went down fails the wait). A respond of this process still under way then is waited for instead: on a loaded
 * machine a claim outlasts 50 ms, and that read was the stray trip test/broker/round-trips.test.ts saw at times.
 * Real SQLite file; the clock is the broker's manual one, so the 50 ms pass while the claim is under way.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBroker, createManualClock, openSqliteStore, type OpenRequestInput } from '../../src/broker/index.js';
import { tripCounter } from '../helpers/store-trips.js';

const ask: OpenRequestInput = {
  trace: 'cal-0000000000000c02',
  server: 's',
  tool: 't',
  mode: 'form',
  message: 'Proceed?',
  era: 'legacy',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
};

describe("a wait's check read", () => {
  it('waits for a respond of this process under way instead of reading', async () => {
    const counter = tripCounter();
    const clock = createManualClock();
    const store = await openSqliteStore(join(mkdtempSync(join(tmpdir(), 'mcpx-check-read-')), 'q.sqlite'), {
      pollIntervalMs: 60_000,
    });
    const broker = createBroker({ store, clock, allowAnySession: true });
    try {
      for (let cycle = 0; cycle < 3; cycle++) {
        counter.counts.clear();
        const { id } = await broker.openRequest(ask);
        counter.phase = 'cycle';
        const woke = broker.awaitAnswer(id);
        const responded = broker.respond({ id, action: 'accept', content: { ok: true }, by: 'api' });
        clock.advance(50); // the check is due while the claim is under way
        await responded;
        expect((await woke).action).toBe('accept');
        counter.phase = undefined;
        // The claim, and no read besides it.
        expect(counter.counts.get('cycle sqlite statement')).toBe(1);
      }
    } finally {
      counter.phase = undefined;
      await broker.close();
      await store.close();
    }
  });
});
