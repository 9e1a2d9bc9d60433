import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonCore } from '../../src/surfaces/daemon/daemon-core.js';
import { fixtureDaemonCore } from '../helpers/fixture-daemon-core.js';
import { fixtureEcho } from '../helpers/fixture-servers.js';

describe('daemon core', () => {
  let core: DaemonCore | undefined;
  afterEach(async () => {
    await core?.close();
  });

  it('pools one mcpx per session and closes a session idle past sessionIdleMs, reopening it on its next call', async () => {
    let now = 1_000_000;
    const opened: string[] = [];
    const closed: string[] = [];
    core = (
      await fixtureDaemonCore({
        opened,
        closed,
        holder: 'core-test',
        clock: () => now,
        sessionIdleMs: 60_000,
      })
    ).core;
    const app = core.app();
    const call = (session: string) =>
      app.request('/v1/call/modern/no_ask', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-mcpx-session': session },
        body: '{"text":"x"}',
      });
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
    core = (
      await fixtureDaemonCore({
        holder: 'core-test',
      })
    ).core;
    const app = core.app();
    const call = () =>
      app.request('/v1/call/legacy/ask_confirm', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-mcpx-session': 'a' },
        body: '{}',
      });
    type Body = { inputRequired: { task: string; questions: Array<{ id: string; ambiguous?: boolean }>; text: string } };
    const first = (await (await call()).json()) as Body;
    expect(first.inputRequired.questions[0]!.ambiguous).toBeUndefined();
    const second = await call();
    expect(second.status).toBe(202);
    const body = (await second.json()) as Body;
    expect(body.inputRequired.questions[0]!.ambiguous).toBe(true);
    // The same §5.1 message the CLI prints (its note, its answer lines), the deadline in UTC to the second.
    expect(body.inputRequired.text).toContain(
      '  note     other calls share this server; this question may belong to one of them (ambiguous)',
    );
    expect(body.inputRequired.text).toMatch(/\n {2}expires {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(\d+m\d+s from now\)\n/);
    expect(body.inputRequired.text).toContain(
      `  answer   mcpx elicit answer ${body.inputRequired.questions[0]!.id} '{"confirm":true}'`,
    );
    for (const id of [first.inputRequired.questions[0]!.id, body.inputRequired.questions[0]!.id]) {
      // Answered from the session that asked (session binding: another session's caller is refused).
      const declined = await app.request(`/v1/elicit/${id}/decline`, { method: 'POST', headers: { 'x-mcpx-session': 'a' } });
      expect(declined.status).toBe(200);
    }
    for (const task of [first.inputRequired.task, body.inputRequired.task]) {
      // Read from the session that called (a task is bound to its session, as its questions are).
      const done = (await (await app.request(`/v1/tasks/${task}?wait=20`, { headers: { 'x-mcpx-session': 'a' } })).json()) as {
        task: { state: string };
      };
      expect(done.task.state).toBe('complete');
    }
  });

  it('answers 202 with every question of a modern round, Location naming the first, and resumes once all are answered', async () => {
    core = (
      await fixtureDaemonCore({
        holder: 'core-test',
      })
    ).core;
    const app = core.app();
    const response = await app.request('/v1/call/modern/ask_two', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"title":"t"}',
    });
    expect(response.status).toBe(202);
    const body = (await response.json()) as { inputRequired: { task: string; questions: Array<{ id: string; key: string }> } };
    expect(body.inputRequired.questions.map((q) => q.key).sort()).toEqual(['confirm', 'details']);
    expect(response.headers.get('location')).toBe(`/v1/elicit/${body.inputRequired.questions[0]!.id}`);
    const [details, confirm] = ['details', 'confirm'].map((k) => body.inputRequired.questions.find((q) => q.key === k)!.id);
    expect(
      (
        await app.request(`/v1/elicit/${details}/accept`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"content":{"repo":"me/two"}}',
        })
      ).status,
    ).toBe(200);
    // One answer of two: the call is still waiting.
    const halfway = (await (await app.request(`/v1/tasks/${body.inputRequired.task}`)).json()) as {
      task: { state: string; waitingOn: string[] };
    };
    expect(halfway.task.state).toBe('input-required');
    expect((await app.request(`/v1/elicit/${confirm}/decline`, { method: 'POST' })).status).toBe(200);
    const done = (await (await app.request(`/v1/tasks/${body.inputRequired.task}?wait=20`)).json()) as {
      task: { state: string; result: { structuredContent?: unknown } };
    };
    expect(done.task.state).toBe('complete');
    const received = fixtureEcho(done.task.result).received;
    expect(received.details).toMatchObject({ action: 'accept', content: { repo: 'me/two' } });
    expect(received.confirm?.action).toBe('decline');
  });

  it('keeps a session whose call waits on a question, however long', async () => {
    let now = 1_000_000;
    core = (
      await fixtureDaemonCore({
        holder: 'core-test',
        clock: () => now,
        sessionIdleMs: 60_000,
      })
    ).core;
    const response = await core.app().request('/v1/call/legacy/ask_confirm', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mcpx-session': 'a' },
      body: '{}',
    });
    expect(response.status).toBe(202);
    now += 10 * 60_000;
    expect(await core.sweep()).toEqual([]);
    expect(core.sessions()).toEqual(['a']);
  });
});
