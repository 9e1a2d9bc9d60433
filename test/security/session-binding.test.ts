/**
 * Session binding of tasks and events (issue #33, item 10): through the daemon's REST, a caller of one session can
 * neither read another session's task (its arguments and result) nor see its events, as it can neither list nor
 * answer its questions; an operator (?all=1, the bearer token) sees every session. Two sessions, one daemon core
 * over the in-memory fixture servers, its REST app in-process.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DaemonCore } from '../../src/surfaces/daemon/daemon-core.js';
import { fixtureDaemonCore } from '../helpers/fixture-daemon-core.js';
import { readSse, type SseEvent } from '../http/helpers.js';

type App = ReturnType<DaemonCore['app']>;
interface Asked {
  task: string;
  id: string;
}

const as = (session: string): Record<string, string> => ({ 'x-mcpx-session': session });

async function ask(app: App, session: string): Promise<Asked> {
  const response = await app.request('/v1/call/modern/ask_confirm', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...as(session) },
    body: '{}',
  });
  expect(response.status).toBe(202);
  const body = (await response.json()) as { inputRequired: { task: string; questions: Array<{ id: string }> } };
  return { task: body.inputRequired.task, id: body.inputRequired.questions[0]!.id };
}

/** The next event that is not `ready`, as JSON. */
async function nextEvent(stream: ReturnType<typeof readSse>): Promise<SseEvent & { body: Record<string, unknown> }> {
  for (;;) {
    const event = await stream.next();
    if (event.event !== 'ready') return { ...event, body: JSON.parse(event.data) as Record<string, unknown> };
  }
}

describe('tasks and events are bound to their session, as questions are (REST)', () => {
  let core: DaemonCore;
  let app: App;
  beforeEach(async () => {
    core = (await fixtureDaemonCore({ holder: 'session-binding' })).core;
    app = core.app();
  });
  afterEach(async () => {
    await core.close();
  });

  it("refuses another session's task with 403 TASK_FORBIDDEN (at once, even with ?wait), and gives it to its own and to an operator", async () => {
    const alice = await ask(app, 'alice');
    for (const path of [`/v1/tasks/${alice.task}`, `/v1/tasks/${alice.task}?wait=20`]) {
      const refused = await app.request(path, { headers: as('mallory') });
      expect(refused.status).toBe(403);
      const body = (await refused.json()) as { error: { code: string; message: string }; task?: unknown };
      expect(body.error.code).toBe('TASK_FORBIDDEN');
      expect(body.error.message).toContain(`task ${alice.task} belongs to another session`);
      expect(body.error.message).toContain('--all');
      expect(JSON.stringify(body)).not.toContain('ask_confirm');
    }
    // The daemon's own session (a caller naming none) is not alice's either.
    expect((await app.request(`/v1/tasks/${alice.task}`)).status).toBe(403);

    const own = await app.request(`/v1/tasks/${alice.task}`, { headers: as('alice') });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { task: { session: string; state: string } }).task).toMatchObject({
      session: 'alice',
      state: 'input-required',
    });
    const operator = await app.request(`/v1/tasks/${alice.task}?all=1`, { headers: as('mallory') });
    expect(operator.status).toBe(200);

    // Answered by alice, the result is hers to read; still refused to mallory.
    expect((await app.request(`/v1/elicit/${alice.id}/decline`, { method: 'POST', headers: as('alice') })).status).toBe(200);
    const done = await app.request(`/v1/tasks/${alice.task}?wait=20`, { headers: as('alice') });
    expect(((await done.json()) as { task: { state: string } }).task.state).toBe('complete');
    expect((await app.request(`/v1/tasks/${alice.task}?wait=20`, { headers: as('mallory') })).status).toBe(403);
  });

  it("shows a session's events only to that session (live and replayed), every session's to an operator", async () => {
    const mallorySees = readSse(await app.request('/v1/events', { headers: as('mallory') }));
    const aliceSees = readSse(await app.request('/v1/events', { headers: as('alice') }));
    const operatorSees = readSse(await app.request('/v1/events?all=1', { headers: as('mallory') }));
    try {
      const alice = await ask(app, 'alice');
      expect((await app.request(`/v1/elicit/${alice.id}/decline`, { method: 'POST', headers: as('alice') })).status).toBe(200);
      const mallory = await ask(app, 'mallory');

      // Alice's stream: her question opening, first.
      const first = await nextEvent(aliceSees);
      expect(first.event).toBe('elicit.open');
      expect(first.body).toMatchObject({ elicit: alice.id, session: 'alice' });
      // Mallory's stream: nothing of alice's came before mallory's own question.
      const seen = await nextEvent(mallorySees);
      expect(seen.event).toBe('elicit.open');
      expect(seen.body).toMatchObject({ elicit: mallory.id, session: 'mallory' });
      // The operator sees both sessions.
      const sessions = new Set<unknown>();
      while (sessions.size < 2) sessions.add((await nextEvent(operatorSees)).body.session);
      expect([...sessions].sort()).toEqual(['alice', 'mallory']);

      // Replayed from the audit log: the caller's own session's events only.
      const replay = readSse(await app.request('/v1/events?since=0', { headers: as('mallory') }));
      try {
        const replayed = await nextEvent(replay);
        expect(replayed.body).toMatchObject({ elicit: mallory.id, session: 'mallory' });
      } finally {
        await replay.close();
      }
      // Whatever else mallory's stream carries, it is mallory's.
      for (let i = 0; i < 3; i += 1) {
        const next = await Promise.race([
          nextEvent(mallorySees),
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 300)),
        ]);
        if (next === undefined) break;
        expect(next.body.session).toBe('mallory');
      }
    } finally {
      await mallorySees.close();
      await aliceSees.close();
      await operatorSees.close();
    }
  });
});
