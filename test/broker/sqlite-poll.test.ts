/**
 * The SQLite store's cross-process poll (`PRAGMA data_version`) reads watched answers only when another connection
 * committed: a wait after an idle spell, with no other writer, costs polls and no read. The store's own
 * checkpointer is another connection, and its checkpoint may move the version: at most one read for each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBroker, openSqliteStore, type OpenRequestInput } from '../../src/broker/index.js';
import { tripCounter } from '../helpers/store-trips.js';

const ask: OpenRequestInput = {
  trace: 'cal-0000000000000e01',
  server: 's',
  tool: 't',
  mode: 'form',
  message: 'Proceed?',
  era: 'modern',
};

describe('sqlite poll', () => {
  it('reads nothing after an idle spell when no other process wrote', async () => {
    const counter = tripCounter();
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-sqlite-poll-'));
    const store = await openSqliteStore(join(dir, 'poll.sqlite'), { pollIntervalMs: 5 });
    const broker = createBroker({ store, allowAnySession: true });
    const reads: number[] = [];
    try {
      counter.counts.clear();
      for (let i = 0; i < 8; i++) {
        counter.phase = 'other';
        const { id } = await broker.openRequest(ask);
        const woke = broker.awaitAnswer(id);
        const before = counter.counts.get('wait sqlite statement') ?? 0;
        counter.phase = 'wait';
        // Long enough for several ticks of the poll.
        await new Promise((resolve) => setTimeout(resolve, 40));
        counter.phase = 'other';
        reads.push((counter.counts.get('wait sqlite statement') ?? 0) - before);
        await broker.respond({ id, action: 'accept', content: {}, by: 'api' });
        await woke;
        // Idle: nobody watches until the next question.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      counter.phase = undefined;
      expect(counter.counts.get('wait sqlite poll') ?? 0).toBeGreaterThan(8);
      const checkpoints =
        (counter.counts.get('wait sqlite checkpoint') ?? 0) + (counter.counts.get('other sqlite checkpoint') ?? 0);
      // The very first wait reads (no version seen yet); after it, only a checkpoint can make one.
      expect(reads.slice(1).filter((n) => n > 0).length).toBeLessThanOrEqual(checkpoints);
    } finally {
      counter.phase = undefined;
      await broker.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
