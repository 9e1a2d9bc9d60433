import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker, createManualClock, type ManualClock, type StoreBroker } from '../../src/broker/index.js';
import { createElicitationPipeline } from '../../src/pipeline/pipeline.js';
import { createTaskRunner, type TaskRunner } from '../../src/tasks/runner.js';
import { createTaskStore, type TaskStore } from '../../src/tasks/task-store.js';
import type { TaskStep } from '../../src/tasks/types.js';
import { fixtureEcho } from '../helpers/fixture-servers.js';
import { fixtureMcpx } from './helpers.js';

type Fixture = Awaited<ReturnType<typeof fixtureMcpx>>;

function inputRequired(step: TaskStep): Extract<TaskStep, { status: 'input-required' }> {
  if (step.status !== 'input-required') throw new Error(`expected input-required, got ${JSON.stringify(step)}`);
  return step;
}

describe('task runner', () => {
  let clock: ManualClock;
  let broker: StoreBroker;
  let store: TaskStore;
  let mcpx: Fixture;
  let runner: TaskRunner;

  beforeEach(async () => {
    clock = createManualClock(Date.now());
    broker = createBroker({ clock, allowAnySession: true });
    store = createTaskStore(broker.store.keyv);
    runner = createTaskRunner({ broker, store, host: async () => mcpx, holder: 'test', pid: 4242, clock: clock.now });
    // The daemon's pipeline: no policy rules, no answerers, so every question waits in the broker.
    mcpx = await fixtureMcpx(createElicitationPipeline({ broker, session: 's1', clock }));
  });
  afterEach(async () => {
    await runner.close();
    await mcpx.closeFixtures();
    await broker.close();
  });

  it('completes a call that asks nothing, and stores its result', async () => {
    const step = await runner.start({ server: 'modern', tool: 'no_ask', arguments: { text: 'hi' }, session: 's1' });
    expect(step.status).toBe('complete');
    const stored = await store.get(step.task.id);
    expect(stored).toMatchObject({ state: 'complete', server: 'modern', tool: 'no_ask', pid: 4242 });
    expect(JSON.stringify(stored?.result)).toContain('hi');
  });

  for (const server of ['modern', 'legacy'] as const) {
    it(`stops at the question, then resumes with the broker's answer (${server})`, async () => {
      const step = inputRequired(await runner.start({ server, tool: 'ask_form', arguments: { title: 'bug' }, session: 's1' }));
      const [question] = step.questions;
      expect(step.questions).toHaveLength(1);
      const request = await broker.get(question!.id);
      expect(request).toMatchObject({ state: 'pending', task: step.task.id, trace: step.task.callId, era: server });
      expect(await store.get(step.task.id)).toMatchObject({ state: 'input-required', era: server, waitingOn: [question!.id] });

      await broker.respond({ id: question!.id, action: 'accept', content: { repo: 'me/thing' }, by: 'cli' });
      const done = await runner.wait(step.task.id, { timeoutMs: 20_000 });
      expect(done?.state).toBe('complete');
      expect(fixtureEcho(done!.result!).received.details).toEqual({
        action: 'accept',
        content: { repo: 'me/thing', private: false, priority: 'normal' },
      });
      const resumed = (await broker.audit({ elicit: question!.id })).filter((e) => e.kind === 'elicit.resumed');
      expect(resumed).toHaveLength(1);
      if (server === 'modern') expect(resumed[0]).toMatchObject({ parent: step.task.callId });
      else expect(resumed[0]).toMatchObject({ trace: step.task.callId });
    });

    it(`delivers decline and cancel as themselves (${server})`, async () => {
      const a = inputRequired(await runner.start({ server, tool: 'ask_confirm', arguments: {}, session: 's1' }));
      await broker.respond({ id: a.questions[0]!.id, action: 'decline', by: 'http' });
      const b = inputRequired(await runner.start({ server, tool: 'ask_confirm', arguments: {}, session: 's1' }));
      await broker.respond({ id: b.questions[0]!.id, action: 'cancel', by: 'http' });
      expect(fixtureEcho((await runner.wait(a.task.id, { timeoutMs: 20_000 }))!.result!).received.confirm?.action).toBe(
        'decline',
      );
      expect(fixtureEcho((await runner.wait(b.task.id, { timeoutMs: 20_000 }))!.result!).received.confirm?.action).toBe('cancel');
    });

    it(`answers cancel to the server when the question expires (${server})`, async () => {
      const step = inputRequired(await runner.start({ server, tool: 'ask_form', arguments: {}, session: 's1' }));
      clock.advance(121_000);
      const done = await runner.wait(step.task.id, { timeoutMs: 20_000 });
      expect(done?.state).toBe('complete');
      expect(fixtureEcho(done!.result!).received.details?.action).toBe('cancel');
      expect(await broker.lookup(step.questions[0]!.id)).toMatchObject({ action: 'cancel', by: 'expiry' });
    });
  }

  it('asks again in a second round and finishes when both are answered (modern)', async () => {
    const first = inputRequired(await runner.start({ server: 'modern', tool: 'ask_rounds', arguments: {}, session: 's1' }));
    const held = runner.wait(first.task.id, { timeoutMs: 20_000 });
    await broker.respond({ id: first.questions[0]!.id, action: 'accept', content: { repo: 'me/thing' }, by: 'cli' });
    // The second round's question opens in the broker under the same task.
    const second = await new Promise<string>((resolve) => {
      const off = broker.subscribe((e) => {
        if (e.kind === 'elicit.open' && e.elicit !== first.questions[0]!.id) {
          off();
          resolve(e.elicit!);
        }
      });
    });
    expect((await broker.get(second))?.task).toBe(first.task.id);
    await broker.respond({ id: second, action: 'accept', content: { confirm: true }, by: 'cli' });
    const done = await held;
    expect(done?.state).toBe('complete');
    expect(done?.questions).toEqual([first.questions[0]!.id, second]);
    expect(fixtureEcho(done!.result!).rounds).toBe(2);
  });

  it('marks a legacy question ambiguous when another call shares the server connection', async () => {
    const a = inputRequired(await runner.start({ server: 'legacy', tool: 'ask_confirm', arguments: {}, session: 's1' }));
    expect(runner.isAmbiguous(a.questions[0]!.id)).toBe(false);
    const b = runner.start({ server: 'legacy', tool: 'ask_confirm', arguments: {}, session: 's1' });
    const opened = await new Promise<string>((resolve) => {
      const off = broker.subscribe((e) => {
        if (e.kind === 'elicit.open') {
          off();
          resolve(e.elicit!);
        }
      });
    });
    expect(runner.isAmbiguous(opened)).toBe(true);
    // The second call's caller hears of the question at once (it may be its own), not after the TTL.
    const bStep = inputRequired(await b);
    expect(bStep.questions.map((q) => q.id)).toEqual([opened]);
    expect((await store.get(bStep.task.id))?.waitingOn).toEqual([opened]);
    await broker.respond({ id: a.questions[0]!.id, action: 'decline', by: 'cli' });
    await broker.respond({ id: opened, action: 'accept', content: { confirm: true }, by: 'cli' });
    const [aDone, bDone] = await Promise.all([
      runner.wait(a.task.id, { timeoutMs: 20_000 }),
      runner.wait(bStep.task.id, { timeoutMs: 20_000 }),
    ]);
    expect(aDone?.state).toBe('complete');
    expect(bDone?.state).toBe('complete');
    // Both answers reached the server, whichever call the seam tied each question to.
    const actions = [aDone, bDone].map((t) => fixtureEcho(t!.result!).received.confirm?.action).sort();
    expect(actions).toEqual(['accept', 'decline']);
  });

  it('fails a call to an unknown server with its error, as a value', async () => {
    const step = await runner.start({ server: 'nowhere', tool: 'x', arguments: {}, session: 's1' });
    expect(step.status).toBe('failed');
    if (step.status === 'failed') expect(step.error.code).toBe('SERVER_NOT_FOUND');
    expect((await store.get(step.task.id))?.state).toBe('failed');
  });

  it('abandons waiting legacy questions when it closes, and leaves modern ones resumable', async () => {
    const legacy = inputRequired(await runner.start({ server: 'legacy', tool: 'ask_form', arguments: {}, session: 's1' }));
    const modern = inputRequired(await runner.start({ server: 'modern', tool: 'ask_form', arguments: {}, session: 's1' }));
    await runner.close('the test stopped the daemon');
    expect(await broker.get(legacy.questions[0]!.id)).toMatchObject({
      state: 'abandoned',
      abandonedReason: 'the test stopped the daemon',
    });
    expect((await store.get(legacy.task.id))?.state).toBe('failed');
    expect((await broker.get(modern.questions[0]!.id))?.state).toBe('pending');
    const kept = await store.get(modern.task.id);
    expect(kept).toMatchObject({ state: 'input-required', era: 'modern' });
    expect(kept?.continuation?.questions[0]?.id).toBe(modern.questions[0]!.id);

    // A new runner (the next daemon) resumes the modern call once it is answered.
    const next = createTaskRunner({ broker, store, host: async () => mcpx, holder: 'test', pid: 4343, clock: clock.now });
    expect(await next.recover()).toEqual({ abandoned: [], resumed: [modern.task.id] });
    await broker.respond({ id: modern.questions[0]!.id, action: 'accept', content: { repo: 'me/next' }, by: 'cli' });
    const done = await next.wait(modern.task.id, { timeoutMs: 20_000 });
    expect(done).toMatchObject({ state: 'complete', pid: 4343 });
    expect(fixtureEcho(done!.result!).received.details?.content).toMatchObject({ repo: 'me/next' });
    await next.close();
  });

  it('on recovery abandons the legacy questions a dead daemon left, and only its own', async () => {
    const legacy = inputRequired(await runner.start({ server: 'legacy', tool: 'ask_form', arguments: {}, session: 's1' }));
    // Another holder's task is not touched.
    const other = createTaskRunner({ broker, store, host: async () => mcpx, holder: 'someone-else', clock: clock.now });
    expect(await other.recover()).toEqual({ abandoned: [], resumed: [] });
    // Simulate the daemon dying without closing: a fresh runner of the same holder recovers.
    const next = createTaskRunner({ broker, store, host: async () => mcpx, holder: 'test', clock: clock.now });
    const recovered = await next.recover();
    expect(recovered.abandoned).toEqual([legacy.questions[0]!.id]);
    expect(await broker.get(legacy.questions[0]!.id)).toMatchObject({ state: 'abandoned' });
    expect((await store.get(legacy.task.id))?.error?.code).toBe('ELICITATION_ABANDONED');
    await next.close();
    await other.close();
  });
});
