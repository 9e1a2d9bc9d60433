import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker, createManualClock, openSqliteStore, type BrokerStore, type StoreBroker } from '../../src/broker/index.js';
import { createElicitationPipeline } from '../../src/pipeline/pipeline.js';
import { createTaskRunner, type TaskRunner } from '../../src/tasks/runner.js';
import { createTaskStore, type TaskStore } from '../../src/tasks/task-store.js';
import type { TaskRecord } from '../../src/tasks/types.js';
import { fixtureEcho } from '../helpers/fixture-servers.js';
import { fixtureMcpx } from './helpers.js';

// `persist: 'on-question'` (what mcpx serve runs with): a call that never asks never touches the task store; one
// that asks is stored no later than its first question (SQLite: in the question's own statement; other stores:
// before it), so every question's task is readable from the store. A modern call whose one question waits stops
// right there: its record goes as it stands at that stop, and that stop is not written again.
describe.each(['memory', 'sqlite'] as const)('task runner, persist on-question (%s)', (kind) => {
  let dir: string | undefined;
  let broker: StoreBroker;
  let store: TaskStore;
  let mcpx: Awaited<ReturnType<typeof fixtureMcpx>>;
  let runner: TaskRunner;
  let writes: string[];
  /** The task each question named, as the store had it once the question's write landed. */
  let seenAtOpen: (TaskRecord | undefined)[];
  /** Which write each question went by. */
  let puts: string[];
  /** Questions whose write carried their holder's live row. */
  let liveRides: number;
  /** Each record handed to the store, and its JSON as it was handed. */
  let handed: Array<[TaskRecord, string]>;

  beforeEach(async () => {
    const clock = createManualClock(Date.now());
    dir = kind === 'sqlite' ? mkdtempSync(join(tmpdir(), 'mcpx-persist-')) : undefined;
    broker = createBroker({
      clock,
      allowAnySession: true,
      ...(dir ? { store: await openSqliteStore(join(dir, 's.sqlite')) } : {}),
    });
    const inner = createTaskStore(broker.store.keyv);
    writes = [];
    seenAtOpen = [];
    puts = [];
    liveRides = 0;
    handed = [];
    store = {
      ...inner,
      put: async (task) => (writes.push(`${task.id}:${task.state}`), handed.push([task, JSON.stringify(task)]), inner.put(task)),
    };
    runner = createTaskRunner({
      broker,
      store,
      host: async () => mcpx,
      holder: 'test',
      pid: 1,
      clock: clock.now,
      persist: 'on-question',
    });
    // Read before the broker goes on, so no later write of the task can have landed.
    const bs = broker.store as { -readonly [K in keyof BrokerStore]: BrokerStore[K] };
    for (const method of ['putQuestion', 'putQuestionWith'] as const) {
      const put = bs[method]?.bind(bs) as ((...args: unknown[]) => Promise<boolean>) | undefined;
      if (!put) continue;
      bs[method] = async (...args: unknown[]): Promise<boolean> => {
        puts.push(method);
        const rows = (args[3] ?? []) as Array<{ key: string }>;
        if (rows.some((row) => row.key.startsWith('tasks-live:'))) liveRides++;
        const written = await put(...args);
        const task = (args[0] as { task?: string }).task;
        seenAtOpen.push(task ? await store.get(task) : undefined);
        return written;
      };
    }
    mcpx = await fixtureMcpx(createElicitationPipeline({ broker, session: 's1', clock }));
  });
  afterEach(async () => {
    await runner.close();
    await mcpx.closeFixtures();
    await broker.close();
    if (dir) await broker.store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const server of ['modern', 'legacy'] as const) {
    it(`calls asking one after another and all at once are each in the live row (${server})`, async () => {
      const ask = () => runner.start({ server, tool: 'ask_form', arguments: { title: 'bug' }, session: 's1' });
      const first = await ask();
      // No live-row write pending now: this one's question carries the row (SQLite).
      const second = await ask();
      const rest = await Promise.all([ask(), ask(), ask(), ask()]);
      const ids = [first, second, ...rest].map((step) => step.task.id);
      expect(new Set(await broker.store.keyv.get<string[]>('tasks-live:test'))).toEqual(new Set(ids));
      expect(liveRides).toBeGreaterThanOrEqual(kind === 'sqlite' ? 1 : 0);
    });

    it(`a call that asks nothing is never written (${server})`, async () => {
      const step = await runner.start({ server, tool: 'no_ask', arguments: { text: 'hi' }, session: 's1' });
      expect(step.status).toBe('complete');
      expect(JSON.stringify(step.status === 'complete' ? step.result : undefined)).toContain('hi');
      expect(writes).toEqual([]);
      expect(await store.get(step.task.id)).toBeUndefined();
    });

    it(`a call that asks is stored before its question opens, and to the end (${server})`, async () => {
      const step = await runner.start({ server, tool: 'ask_form', arguments: { title: 'bug' }, session: 's1' });
      if (step.status !== 'input-required') throw new Error(`expected input-required, got ${step.status}`);
      expect(seenAtOpen).toHaveLength(1);
      expect(puts).toEqual([kind === 'sqlite' ? 'putQuestionWith' : 'putQuestion']);
      expect(await store.get(step.task.id)).toMatchObject({ state: 'input-required', waitingOn: [step.questions[0]!.id] });
      if (server === 'modern') {
        // Its one question waits (nobody here to ask): the stop's record went with the question, and is not written again.
        expect(seenAtOpen[0]).toEqual(JSON.parse(JSON.stringify(step.task)));
        expect(seenAtOpen[0]?.continuation?.questions.map((q) => q.id)).toEqual([step.questions[0]!.id]);
        expect(writes).toEqual([]);
      } else {
        expect(seenAtOpen[0]).toMatchObject({ id: step.task.id, state: 'running', session: 's1' });
        expect(writes).toEqual([`${step.task.id}:input-required`]);
      }

      await broker.respond({ id: step.questions[0]!.id, action: 'decline', by: 'cli' });
      const done = await runner.wait(step.task.id, { timeoutMs: 20_000 });
      expect(done?.state).toBe('complete');
      expect(fixtureEcho(done!.result!).received.details).toEqual({ action: 'decline' });
    });

    it(`a question something here may answer is stored with its call as running (${server})`, async () => {
      const waiting = mcpx;
      const decline = async () => ({ action: 'decline' as const });
      mcpx = await fixtureMcpx(
        createElicitationPipeline({ broker, session: 's1', answerers: [{ kind: 'script', answer: decline }] }),
      );
      try {
        const step = await runner.start({ server, tool: 'ask_form', arguments: { title: 'bug' }, session: 's1' });
        expect(step.status).toBe('complete');
        expect(seenAtOpen).toHaveLength(1);
        expect(seenAtOpen[0]).toMatchObject({ id: step.task.id, state: 'running' });
        expect(seenAtOpen[0]).not.toHaveProperty('continuation');
      } finally {
        await waiting.closeFixtures();
      }
    });

    it(`a stop's task and every record written stay as they were while the call goes on (${server})`, async () => {
      const step = await runner.start({ server, tool: 'ask_rounds', arguments: { title: 'bug' }, session: 's1' });
      if (step.status !== 'input-required') throw new Error(`expected input-required, got ${step.status}`);
      const atStop = JSON.stringify(step.task);
      const held = runner.wait(step.task.id, { timeoutMs: 20_000 });
      await broker.respond({ id: step.questions[0]!.id, action: 'accept', content: { repo: 'me/thing' }, by: 'cli' });
      // The second round's question, then the end.
      const second = await new Promise<string>((resolve) => {
        const off = broker.subscribe((e) => {
          if (e.kind !== 'elicit.open' || e.elicit === step.questions[0]!.id) return;
          off();
          resolve(e.elicit!);
        });
      });
      await broker.respond({ id: second, action: 'accept', content: { confirm: true }, by: 'cli' });
      expect((await held)?.state).toBe('complete');
      expect(JSON.stringify(step.task)).toBe(atStop);
      expect(step.task).toMatchObject({ state: 'input-required', waitingOn: [step.questions[0]!.id] });
      // A modern call's first stop went with its question (not handed to put); the second round's is written.
      const stops = server === 'modern' ? ['input-required', 'complete'] : ['input-required', 'input-required', 'complete'];
      expect(handed.map(([task]) => task.state)).toEqual(stops);
      for (const [task, json] of handed) expect(JSON.stringify(task)).toBe(json);
    });
  }
});
