/**
 * The badge's count (`countPendingInSqliteFile`) against `broker.pending()` on the same real SQLite file:
 * answered (accept, decline, cancel), abandoned and lapsed questions are not waiting; sessions filter; a missing
 * file counts nothing and is not created.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBroker, openSqliteStore } from '../../src/broker/index.js';
import { countPendingInSqliteFile } from '../../src/broker/stores/sqlite/count.js';

const question = (session: string, ttlMs = 120_000) => ({
  trace: 'cal-0000000000000001',
  session,
  sessionSource: 'explicit' as const,
  server: 'fx',
  tool: 'ask_form',
  mode: 'form' as const,
  message: 'Which repository?',
  era: 'legacy' as const,
  ttlMs,
});

describe('countPendingInSqliteFile', () => {
  it('counts what broker.pending lists, per session too', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'mcpx-count-')), 'mcpx.sqlite');
    const store = await openSqliteStore(path);
    const broker = createBroker({ store, allowAnySession: true });
    try {
      const opened = [];
      for (const session of ['s-a', 's-a', 's-a', 's-b', 's-b', 's-b']) opened.push(await broker.openRequest(question(session)));
      const short = await broker.openRequest(question('s-b', 1_000));
      await broker.respond({ id: opened[0]!.id, action: 'decline', by: 'cli' });
      await broker.respond({ id: opened[3]!.id, action: 'cancel', by: 'cli' });
      await broker.respond({ id: opened[4]!.id, action: 'accept', content: {}, by: 'cli' });
      await broker.abandon(opened[5]!.id, 'the daemon stopped');

      expect(await countPendingInSqliteFile(path)).toBe((await broker.pending()).length);
      expect(await countPendingInSqliteFile(path)).toBe(3);
      expect(await countPendingInSqliteFile(path, { session: 's-a' })).toBe(2);
      expect(await countPendingInSqliteFile(path, { session: 's-b' })).toBe(1);
      // After the short question's deadline it no longer waits.
      expect(await countPendingInSqliteFile(path, { now: short.expiresAt })).toBe(2);
    } finally {
      await broker.close();
      await store.close();
    }
  });

  it('counts nothing for a missing file and does not create it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'mcpx-count-')), 'mcpx.sqlite');
    expect(await countPendingInSqliteFile(path)).toBe(0);
    expect(existsSync(path)).toBe(false);
  });
});
