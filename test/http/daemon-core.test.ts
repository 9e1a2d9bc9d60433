import { afterEach, describe, expect, it } from 'vitest';
import { createBroker, createElicitationPipeline } from '../../src/broker/index.js';
import { createDaemonCore, type DaemonCore } from '../../src/surfaces/http/daemon-core.js';
import { fixtureMcpx } from '../tasks/helpers.js';

describe('daemon core', () => {
  let core: DaemonCore | undefined;
  afterEach(async () => {
    await core?.close();
  });

  it('pools one mcpx per session and closes a session idle past sessionIdleMs, reopening it on its next call', async () => {
    let now = 1_000_000;
    const broker = createBroker({ allowAnySession: true });
    const opened: string[] = [];
    const closed: string[] = [];
    core = await createDaemonCore({
      parts: {
        broker,
        taskKeyv: broker.store.keyv,
        defaultSession: 'default',
        openHost: async (session, sessionSource, stamping) => {
          opened.push(session);
          const mcpx = await fixtureMcpx(createElicitationPipeline({ broker: stamping, session: { session, sessionSource } }));
          return { ...mcpx, close: async () => (closed.push(session), await mcpx.closeFixtures()) };
        },
        close: () => broker.close(),
      },
      version: 'test',
      pid: 1,
      holder: 'core-test',
      clock: () => now,
      sessionIdleMs: 60_000,
    });
    const app = core.app();
    const call = (session: string) =>
      app.request('/v1/call/modern/no_ask', { method: 'POST', headers: { 'content-type': 'application/json', 'x-mcpx-session': session }, body: '{"text":"x"}' });
    expect((await call('a')).status).toBe(200);
    expect((await call('a')).status).toBe(200);
    expect((await call('b')).status).toBe(200);
    expect(opened).toEqual(['a', 'b']);
    expect(core.sessions().sort()).toEqual(['a', 'b']);

    now += 30_000;
    expect((await call('b')).status).toBe(200);
    now += 40_000;
    expect(await core.sweep()).toEqual(['a']);
    expect(closed).toEqual(['a']);
    expect(core.sessions()).toEqual(['b']);

    expect((await call('a')).status).toBe(200);
    expect(opened).toEqual(['a', 'b', 'a']);
  });

  it('answers 202 with the question marked ambiguous to a second legacy call of the same session', async () => {
    const broker = createBroker({ allowAnySession: true });
    core = await createDaemonCore({
      parts: {
        broker,
        taskKeyv: broker.store.keyv,
        defaultSession: 'default',
        openHost: async (session, sessionSource, stamping) => {
          const mcpx = await fixtureMcpx(createElicitationPipeline({ broker: stamping, session: { session, sessionSource } }));
          return { ...mcpx, close: () => mcpx.closeFixtures() };
        },
        close: () => broker.close(),
      },
      version: 'test',
      pid: 1,
      holder: 'core-test',
    });
    const app = core.app();
    const call = () => app.request('/v1/call/legacy/ask_confirm', { method: 'POST', headers: { 'content-type': 'application/json', 'x-mcpx-session': 'a' }, body: '{}' });
    type Body = { inputRequired: { task: string; questions: Array<{ id: string; ambiguous?: boolean }>; text: string } };
    const first = (await (await call()).json()) as Body;
    expect(first.inputRequired.questions[0]!.ambiguous).toBeUndefined();
    const second = await call();
    expect(second.status).toBe(202);
    const body = (await second.json()) as Body;
    expect(body.inputRequired.questions[0]!.ambiguous).toBe(true);
    expect(body.inputRequired.text).toContain('ambiguous');
    for (const id of [first.inputRequired.questions[0]!.id, body.inputRequired.questions[0]!.id]) {
      expect((await app.request(`/v1/elicit/${id}/decline`, { method: 'POST' })).status).toBe(200);
    }
    for (const task of [first.inputRequired.task, body.inputRequired.task]) {
      const done = (await (await app.request(`/v1/tasks/${task}?wait=20`)).json()) as { task: { state: string } };
      expect(done.task.state).toBe('complete');
    }
  });

  it('keeps a session whose call waits on a question, however long', async () => {
    let now = 1_000_000;
    const broker = createBroker({ allowAnySession: true });
    core = await createDaemonCore({
      parts: {
        broker,
        taskKeyv: broker.store.keyv,
        defaultSession: 'default',
        openHost: async (session, sessionSource, stamping) => {
          const mcpx = await fixtureMcpx(createElicitationPipeline({ broker: stamping, session: { session, sessionSource } }));
          return { ...mcpx, close: () => mcpx.closeFixtures() };
        },
        close: () => broker.close(),
      },
      version: 'test',
      pid: 1,
      holder: 'core-test',
      clock: () => now,
      sessionIdleMs: 60_000,
    });
    const response = await core.app().request('/v1/call/legacy/ask_confirm', { method: 'POST', headers: { 'content-type': 'application/json', 'x-mcpx-session': 'a' }, body: '{}' });
    expect(response.status).toBe(202);
    now += 10 * 60_000;
    expect(await core.sweep()).toEqual([]);
    expect(core.sessions()).toEqual(['a']);
  });
});
