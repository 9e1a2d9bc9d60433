/** The task runner holds prompts and resource reads that ask, like tool calls: stopped at the question, resumed by the broker's answer. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker, createManualClock, type StoreBroker } from '../../src/broker/index.js';
import { createElicitationPipeline } from '../../src/pipeline/pipeline.js';
import { createTaskRunner, type TaskRunner } from '../../src/tasks/runner.js';
import { createTaskStore, type TaskStore } from '../../src/tasks/task-store.js';
import { fixtureMcpx } from './helpers.js';

type Fixture = Awaited<ReturnType<typeof fixtureMcpx>>;

describe('task runner: prompts and resources', () => {
  let broker: StoreBroker;
  let store: TaskStore;
  let mcpx: Fixture;
  let runner: TaskRunner;

  beforeEach(async () => {
    const clock = createManualClock(Date.now());
    broker = createBroker({ clock, allowAnySession: true });
    store = createTaskStore(broker.store.keyv);
    runner = createTaskRunner({ broker, store, host: async () => mcpx, holder: 'test', clock: clock.now });
    mcpx = await fixtureMcpx(createElicitationPipeline({ broker, session: 's1', clock }));
  });
  afterEach(async () => {
    await runner.close();
    await mcpx.closeFixtures();
    await broker.close();
  });

  for (const server of ['modern', 'legacy'] as const) {
    it(`stops a prompt at its question and completes it with the broker's answer (${server})`, async () => {
      const step = await runner.start({
        server,
        tool: 'ask_prompt',
        method: 'prompts/get',
        arguments: { topic: 'bugs' },
        session: 's1',
      });
      if (step.status !== 'input-required') throw new Error(`expected input-required, got ${JSON.stringify(step)}`);
      expect(step.task).toMatchObject({ method: 'prompts/get', tool: 'ask_prompt', era: server });
      const request = await broker.get(step.questions[0]!.id);
      expect(request).toMatchObject({ state: 'pending', tool: 'ask_prompt', task: step.task.id });
      await broker.respond({ id: step.questions[0]!.id, action: 'accept', content: { repo: 'me/thing' }, by: 'cli' });
      const done = await runner.wait(step.task.id, { timeoutMs: 20_000 });
      expect(done?.state).toBe('complete');
      expect(JSON.stringify(done?.result)).toContain('\\"repo\\":\\"me/thing\\"');
      expect((await store.get(step.task.id))?.method).toBe('prompts/get');
    });

    it(`stops a resource read at its question and delivers decline (${server})`, async () => {
      const step = await runner.start({
        server,
        tool: 'mcpx-fixture://ask',
        method: 'resources/read',
        arguments: {},
        session: 's1',
      });
      if (step.status !== 'input-required') throw new Error(`expected input-required, got ${JSON.stringify(step)}`);
      await broker.respond({ id: step.questions[0]!.id, action: 'decline', by: 'http' });
      const done = await runner.wait(step.task.id, { timeoutMs: 20_000 });
      expect(done?.state).toBe('complete');
      const contents = (done?.result as { contents: Array<{ text: string }> }).contents;
      expect(JSON.parse(contents[0]!.text)).toMatchObject({
        resource: 'mcpx-fixture://ask',
        received: { confirm: { action: 'decline' } },
      });
    });
  }
});
