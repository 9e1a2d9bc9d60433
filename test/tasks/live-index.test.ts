/**
 * Recovery after a restart reads the holder's live-task row and those tasks, not every row in the store: on a real
 * SQLite file holding 2,000 finished tasks of other holders, a restarted process lists its own two unfinished tasks
 * without iterating the store. A store written before the row existed is scanned once, then never again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Keyv } from 'keyv';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type BrokerStore } from '../../src/broker/index.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import type { TaskRecord } from '../../src/tasks/types.js';

const task = (id: string, holder: string, state: TaskRecord['state']): TaskRecord => ({
  id,
  callId: `cal-${id.slice(4)}`,
  server: 'fx',
  tool: 'ask',
  arguments: {},
  session: 's',
  state,
  questions: [],
  waitingOn: [],
  pid: 1,
  holder,
  createdAt: 0,
  updatedAt: 0,
});
const id = (n: number): string => `tsk-${n.toString(16).padStart(16, '0')}`;

/** Counts how often anything iterates the store (the scan recovery must not need). */
function countingIterations(keyv: Keyv): { count: number } {
  const counter = { count: 0 };
  const iterator = keyv.iterator!.bind(keyv);
  keyv.iterator = ((...args: Parameters<typeof iterator>) => {
    counter.count++;
    return iterator(...args);
  }) as typeof iterator;
  return counter;
}

describe('task recovery index', () => {
  const stores: BrokerStore[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-live-'));
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("lists a restarted holder's unfinished tasks from its row, without iterating 2,000 other tasks", async () => {
    const file = join(dir, 'index.sqlite');
    const first = await openSqliteStore(file);
    stores.push(first);
    const before = createTaskStore(first.keyv);
    for (let n = 0; n < 2_000; n++) await before.put(task(id(n), `other-${n % 7}`, n % 2 ? 'complete' : 'failed'));
    await before.put(task(id(5_000), 'daemon-a', 'input-required'));
    await before.put(task(id(5_001), 'daemon-a', 'running'));
    await before.put(task(id(5_002), 'daemon-a', 'running'));
    await before.put({ ...task(id(5_002), 'daemon-a', 'complete') });
    await before.put(task(id(5_003), 'daemon-b', 'input-required'));

    // The restart: a new process (a new connection and task store) on the same file.
    const second = await openSqliteStore(file);
    stores.push(second);
    const iterations = countingIterations(second.keyv);
    const after = createTaskStore(second.keyv);
    const mine = await after.unfinished('daemon-a');
    expect(mine.map((t) => t.id).sort()).toEqual([id(5_000), id(5_001)]);
    expect(iterations.count).toBe(0);
    expect((await after.unfinished('daemon-b')).map((t) => t.id)).toEqual([id(5_003)]);
    expect(iterations.count).toBe(0);
  });

  it('builds the row with one scan for a store written before it existed, and reads the row after that', async () => {
    const store = await openSqliteStore(join(dir, 'old.sqlite'));
    stores.push(store);
    // Written as before the index: task rows only.
    await store.keyv.set(`task:${id(1)}`, task(id(1), 'daemon-a', 'input-required'));
    await store.keyv.set(`task:${id(2)}`, task(id(2), 'daemon-a', 'complete'));
    await store.keyv.set(`task:${id(4)}`, task(id(4), 'daemon-b', 'running'));
    const iterations = countingIterations(store.keyv);
    const tasks = createTaskStore(store.keyv);
    expect((await tasks.unfinished('daemon-a')).map((t) => t.id)).toEqual([id(1)]);
    expect(iterations.count).toBe(1);
    expect((await tasks.unfinished('daemon-b')).map((t) => t.id)).toEqual([id(4)]);
    await tasks.put(task(id(1), 'daemon-a', 'complete'));
    await tasks.put(task(id(3), 'daemon-a', 'running'));
    const restarted = createTaskStore(store.keyv);
    expect((await restarted.unfinished('daemon-a')).map((t) => t.id)).toEqual([id(3)]);
    // A holder never seen before (a new process) has no row and needs no scan either.
    expect(await restarted.unfinished('inline-424242')).toEqual([]);
    expect(iterations.count).toBe(1);
  });

  it("costs a finished task one write (its record); the row drops it with the next addition, and a restart's read prunes it", async () => {
    const store = await openSqliteStore(join(dir, 'lazy.sqlite'));
    stores.push(store);
    const tasks = createTaskStore(store.keyv);
    await tasks.unfinished('serve-a');
    const writes: string[] = [];
    const set = store.keyv.set.bind(store.keyv);
    store.keyv.set = ((key: string, ...rest: unknown[]) => {
      writes.push(key);
      return (set as (...a: unknown[]) => Promise<boolean>)(key, ...rest);
    }) as typeof store.keyv.set;
    await tasks.put(task(id(1), 'serve-a', 'input-required'));
    expect(writes).toEqual([`task:${id(1)}`, 'tasks-live:serve-a']);
    writes.length = 0;
    await tasks.put(task(id(1), 'serve-a', 'complete'));
    expect(writes).toEqual([`task:${id(1)}`]);
    // Every reader skips it meanwhile: another process's, and this one's.
    expect(await tasks.liveOf('serve-a')).toEqual([]);
    expect(await createTaskStore(store.keyv).unfinished('serve-a')).toEqual([]);
    await tasks.put(task(id(2), 'serve-a', 'running'));
    expect(await store.keyv.get('tasks-live:serve-a')).toEqual([id(2)]);

    // A restarted holder reads a row naming a finished task: its next write leaves it out.
    await tasks.put(task(id(2), 'serve-a', 'complete'));
    expect(await store.keyv.get('tasks-live:serve-a')).toEqual([id(2)]);
    const restarted = createTaskStore(store.keyv);
    expect(await restarted.unfinished('serve-a')).toEqual([]);
    await restarted.put(task(id(3), 'serve-a', 'input-required'));
    expect(await store.keyv.get('tasks-live:serve-a')).toEqual([id(3)]);
  });
});
