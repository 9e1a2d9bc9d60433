import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker, createManualClock, type StoreBroker } from '../../src/broker/index.js';
import { createElicitationPipeline } from '../../src/elicitation/pipeline.js';
import { createTaskRunner, type TaskRunner } from '../../src/tasks/runner.js';
import { createTaskStore, type TaskStore } from '../../src/tasks/task-store.js';
import type { TaskRecord } from '../../src/tasks/types.js';
import { fixtureEcho } from '../helpers/fixture-servers.js';
import { fixtureMcpx } from './helpers.js';

// `persist: 'on-question'` (what mcpx serve runs with): a call that never asks never touches the task store; one
// that asks is stored before its first question is opened, so every question's task is readable from the store.
describe('task runner, persist on-question', () => {
  let broker: StoreBroker;
  let store: TaskStore;
  let mcpx: Awaited<ReturnType<typeof fixtureMcpx>>;
  let runner: TaskRunner;
  let writes: string[];
  /** The task each question named, as the store had it when the question was opened. */
  let seenAtOpen: (TaskRecord | undefined)[];

  beforeEach(async () => {
    const clock = createManualClock(Date.now());
    broker = createBroker({ clock, allowAnySession: true });
    const inner = createTaskStore(broker.store.keyv);
    writes = [];
    seenAtOpen = [];
    store = { ...inner, put: async (task) => (writes.push(`${task.id}:${task.state}`), inner.put(task)) };
    runner = createTaskRunner({
      broker,
      store,
      host: async () => mcpx,
      holder: 'test',
      pid: 1,
      clock: clock.now,
      persist: 'on-question',
    });
    // Heard after the runner's own hook, which names the task.
    broker.onOpen(async (request) => void seenAtOpen.push(request.task ? await store.get(request.task) : undefined));
    mcpx = await fixtureMcpx(createElicitationPipeline({ broker, session: 's1', clock }));
  });
  afterEach(async () => {
    await runner.close();
    await mcpx.closeFixtures();
    await broker.close();
  });

  for (const server of ['modern', 'legacy'] as const) {
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
      expect(seenAtOpen[0]).toMatchObject({ id: step.task.id, state: 'running', session: 's1' });
      expect(await store.get(step.task.id)).toMatchObject({ state: 'input-required', waitingOn: [step.questions[0]!.id] });

      await broker.respond({ id: step.questions[0]!.id, action: 'decline', by: 'cli' });
      const done = await runner.wait(step.task.id, { timeoutMs: 20_000 });
      expect(done?.state).toBe('complete');
      expect(fixtureEcho(done!.result!).received.details).toEqual({ action: 'decline' });
    });
  }
});
