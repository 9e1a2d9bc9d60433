/**
 * A process awaiting only an answer stays alive until the answer comes. Before the awaited deadline held the
 * process open, such a process ended at once with exit code 13 (an unsettled top-level await) and no message.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { createBroker, openSqliteStore } from '../../src/broker/index.js';

const child = join(import.meta.dirname, 'fixtures', 'await-only.ts');

describe('awaitAnswer', () => {
  it('keeps a process whose only work is the wait alive until another process answers', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcpx-keepalive-')), 'q.sqlite');
    const proc = spawn(process.execPath, ['--import', 'tsx', child, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
    const first = await lines.next();
    expect(first.done, stderr).toBe(false);
    const id = first.value as string;
    expect(id).toMatch(/^elc-[0-9a-f]{16}$/);

    const store = await openSqliteStore(file);
    const broker = createBroker({ store, allowAnySession: true });
    try {
      await broker.respond({ id, action: 'accept', content: { repo: 'me/thing' }, by: 'cli' });
    } finally {
      await broker.close();
      await store.close();
    }
    const second = await lines.next();
    expect(second.done, `the waiting process ended without the answer: ${stderr}`).toBe(false);
    expect(JSON.parse(second.value as string)).toEqual({ action: 'accept', content: { repo: 'me/thing' } });
    expect(await exited).toBe(0);
  });
});
