/**
 * Which calls' questions the runner reports ambiguous: the client's own verdict, through the pipeline. Two
 * legacy calls open at once on the v1 fixture: over stdio the second question cannot be tied to its call, over
 * Streamable HTTP with the question on the call's response stream it can.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBroker, type StoreBroker } from '../../src/broker/index.js';
import { createElicitationPipeline } from '../../src/pipeline/pipeline.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import type { ServerConfig } from '../../src/config/index.js';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import { createTaskRunner, type TaskRunner } from '../../src/tasks/runner.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import type { TaskStep } from '../../src/tasks/types.js';
import { fixtureEcho, startHttpFixture, stdioFixture } from '../helpers/fixture-servers.js';

function inputRequired(step: TaskStep): Extract<TaskStep, { status: 'input-required' }> {
  if (step.status !== 'input-required') throw new Error(`expected input-required, got ${JSON.stringify(step)}`);
  return step;
}

describe('task runner ambiguity', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });

  async function wire(server: ServerConfig): Promise<{ broker: StoreBroker; runner: TaskRunner }> {
    const broker = createBroker({ allowAnySession: true });
    const runner = createTaskRunner({
      broker,
      store: createTaskStore(broker.store.keyv),
      host: async () => mcpx,
      holder: 'test',
      pid: 1,
    });
    const mcpx: Mcpx = await createMcpx({
      config: { mcpServers: { old: server } },
      env: { ...process.env, MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-ambiguity-')) },
      eraCache: createMemoryEraCache(),
      onElicit: createElicitationPipeline({ broker, session: 's1' }),
      answerLater: true,
    });
    closers.push(async () => {
      await runner.close();
      await mcpx.close();
      await broker.close();
    });
    return { broker, runner };
  }

  /** Call A waits on its question, then call B asks while A is still open. */
  async function twoCalls(broker: StoreBroker, runner: TaskRunner) {
    const a = inputRequired(await runner.start({ server: 'old', tool: 'ask_confirm', arguments: {}, session: 's1' }));
    const b = inputRequired(await runner.start({ server: 'old', tool: 'ask_confirm', arguments: {}, session: 's1' }));
    const aQuestion = a.questions[0]!.id;
    const bQuestion = b.questions.find((q) => q.id !== aQuestion)?.id ?? b.questions[0]!.id;
    return { a, b, aQuestion, bQuestion, request: await broker.get(bQuestion) };
  }

  it('marks the second question ambiguous over stdio, where nothing ties it to its call', async () => {
    const { broker, runner } = await wire(stdioFixture('legacy-v1'));
    const { a, b, aQuestion, bQuestion, request } = await twoCalls(broker, runner);
    expect(runner.isAmbiguous(aQuestion)).toBe(false);
    expect(runner.isAmbiguous(bQuestion)).toBe(true);
    expect(request).toMatchObject({ ambiguous: true, candidateCalls: [a.task.callId, b.task.callId] });
    await broker.respond({ id: aQuestion, action: 'decline', by: 'cli' });
    await broker.respond({ id: bQuestion, action: 'accept', content: { confirm: true }, by: 'cli' });
    for (const task of [a.task.id, b.task.id]) expect((await runner.wait(task, { timeoutMs: 30_000 }))?.state).toBe('complete');
  });

  it('keeps a question guessed to a call that then ended for the other call it may belong to (answered, not cancelled)', async () => {
    const { broker, runner } = await wire(stdioFixture('legacy-v1'));
    // A works without asking; B asks meanwhile: the question is guessed to A, the oldest call not asking.
    const aStep = runner.start({ server: 'old', tool: 'sleep', arguments: { ms: 1500 }, session: 's1' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const b = inputRequired(await runner.start({ server: 'old', tool: 'ask_confirm', arguments: {}, session: 's1' }));
    const a = inputRequired(await aStep);
    const id = b.questions[0]!.id;
    expect(a.questions.map((q) => q.id)).toEqual([id]);
    expect(runner.isAmbiguous(id)).toBe(true);
    // A ends before anyone answered: B still waits on the question, which stays pending for the person.
    expect((await runner.wait(a.task.id, { timeoutMs: 30_000 }))?.state).toBe('complete');
    expect((await broker.get(id))?.state).toBe('pending');
    await broker.respond({ id, action: 'accept', content: { confirm: true }, by: 'cli' });
    const bDone = await runner.wait(b.task.id, { timeoutMs: 30_000 });
    expect(bDone?.state).toBe('complete');
    expect(fixtureEcho(bDone!.result!).received.confirm).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('does not mark it over Streamable HTTP when the question travels on its call’s response stream', async () => {
    const fixture = await startHttpFixture('legacy-v1', { MCPX_FIXTURE_LINK: 'stream' });
    closers.push(() => fixture.close());
    const { broker, runner } = await wire({ url: fixture.url });
    const { a, b, aQuestion, bQuestion, request } = await twoCalls(broker, runner);
    expect(b.questions.map((q) => q.id)).toEqual([bQuestion]);
    expect(runner.isAmbiguous(aQuestion)).toBe(false);
    expect(runner.isAmbiguous(bQuestion)).toBe(false);
    expect(request?.ambiguous).toBeUndefined();
    expect(request).toMatchObject({ trace: b.task.callId, task: b.task.id });
    // Tied for certain: each answer reaches the call that asked.
    await broker.respond({ id: aQuestion, action: 'decline', by: 'cli' });
    await broker.respond({ id: bQuestion, action: 'accept', content: { confirm: true }, by: 'cli' });
    const [aDone, bDone] = await Promise.all([
      runner.wait(a.task.id, { timeoutMs: 30_000 }),
      runner.wait(b.task.id, { timeoutMs: 30_000 }),
    ]);
    expect(fixtureEcho(aDone!.result!).received.confirm).toEqual({ action: 'decline' });
    expect(fixtureEcho(bDone!.result!).received.confirm).toEqual({ action: 'accept', content: { confirm: true } });
  });
});
