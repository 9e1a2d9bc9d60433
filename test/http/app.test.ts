import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker, createManualClock, type ManualClock, type StoreBroker } from '../../src/broker/index.js';
import type { OpenRequestInput } from '../../src/broker/types.js';
import { McpxError } from '../../src/errors.js';
import { createTaskRunner, type TaskRunner } from '../../src/tasks/runner.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import { createApp } from '../../src/surfaces/http/app.js';
import { readSse } from './helpers.js';

const question: OpenRequestInput = {
  trace: 'cal-0123456789abcdef',
  server: 'fx',
  tool: 'ask_form',
  mode: 'form',
  message: 'Which repository should this go in?',
  era: 'modern',
  session: 's1',
  requestedSchema: {
    type: 'object',
    properties: {
      repo: { type: 'string', minLength: 3, description: 'owner/name' },
      private: { type: 'boolean', default: false },
    },
    required: ['repo'],
  },
};

describe('REST app', () => {
  let clock: ManualClock;
  let broker: StoreBroker;
  let tasks: TaskRunner;
  let app: ReturnType<typeof createApp>;

  beforeEach(() => {
    clock = createManualClock();
    broker = createBroker({ clock, allowAnySession: true, ttlMs: 120_000 });
    // These routes never start a call: a host that is asked for is a test failure.
    tasks = createTaskRunner({
      broker,
      store: createTaskStore(broker.store.keyv),
      host: () => Promise.reject(new McpxError('SERVER_NOT_FOUND', 'no host in this test')),
      clock: clock.now,
    });
    app = createApp({
      broker,
      tasks,
      info: { pid: 1, version: '0.1.0', startedAt: 0 },
      defaultSession: 's1',
      clock: clock.now,
      keepAliveMs: 60_000,
    });
  });
  afterEach(async () => {
    await tasks.close();
    await broker.close();
  });

  it('lists pending questions with time left and the command that answers them', async () => {
    const opened = await broker.openRequest(question);
    clock.advance(30_000);
    const response = await app.request('/v1/elicit');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { elicitations: Array<Record<string, unknown>> };
    expect(body.elicitations).toHaveLength(1);
    expect(body.elicitations[0]).toMatchObject({ id: opened.id, state: 'pending', timeLeftMs: 90_000, server: 'fx' });
    expect(body.elicitations[0]!.respondWith).toBe(`mcpx elicit answer ${opened.id} '{"repo":"..."}'`);
  });

  it('filters the list by server and state', async () => {
    const a = await broker.openRequest(question);
    await broker.openRequest({ ...question, server: 'other' });
    await broker.respond({ id: a.id, action: 'decline', by: 'cli' });
    const byServer = (await (await app.request('/v1/elicit?server=other')).json()) as { elicitations: unknown[] };
    expect(byServer.elicitations).toHaveLength(1);
    const answered = (await (await app.request('/v1/elicit?state=answered')).json()) as { elicitations: Array<{ id: string }> };
    expect(answered.elicitations.map((e) => e.id)).toEqual([a.id]);
    const bad = await app.request('/v1/elicit?state=finished');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('finished');
  });

  it('shows one question with its time remaining, then with its answer', async () => {
    const opened = await broker.openRequest(question);
    clock.advance(20_000);
    const before = (await (await app.request(`/v1/elicit/${opened.id}`)).json()) as {
      elicitation: { timeLeftMs: number };
      answer?: unknown;
    };
    expect(before.elicitation.timeLeftMs).toBe(100_000);
    expect(before.answer).toBeUndefined();
    await app.request(`/v1/elicit/${opened.id}/accept`, {
      method: 'POST',
      body: JSON.stringify({ content: { repo: 'me/thing' } }),
      headers: { 'content-type': 'application/json' },
    });
    const after = (await (await app.request(`/v1/elicit/${opened.id}`)).json()) as {
      elicitation: { state: string; timeLeftMs: number };
      answer: { action: string; content: unknown; by: string };
    };
    expect(after.elicitation).toMatchObject({ state: 'answered', timeLeftMs: 0 });
    expect(after.answer).toMatchObject({ action: 'accept', content: { repo: 'me/thing', private: false }, by: 'http' });
  });

  it('answers 422 with the issues for invalid content, and the question stays pending', async () => {
    const opened = await broker.openRequest(question);
    const response = await app.request(`/v1/elicit/${opened.id}/accept`, {
      method: 'POST',
      body: JSON.stringify({ content: { repo: 'x' } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { code: string; data: { issues: Array<{ field: string }> } } };
    expect(body.error.code).toBe('ANSWER_INVALID');
    expect(body.error.data.issues.map((i) => i.field)).toContain('repo');
    expect((await broker.get(opened.id))?.state).toBe('pending');
  });

  it('answers 409 when already answered, keeping the first answer', async () => {
    const opened = await broker.openRequest(question);
    expect((await app.request(`/v1/elicit/${opened.id}/decline`, { method: 'POST' })).status).toBe(200);
    const second = await app.request(`/v1/elicit/${opened.id}/cancel`, { method: 'POST' });
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('ELICITATION_ALREADY_ANSWERED');
    expect((await broker.lookup(opened.id))?.action).toBe('decline');
  });

  it('records the surface the caller names in X-Mcpx-By, http by default, and refuses policy or expiry', async () => {
    const [a, b, c] = await Promise.all([
      broker.openRequest(question),
      broker.openRequest(question),
      broker.openRequest(question),
    ]);
    expect((await app.request(`/v1/elicit/${a.id}/decline`, { method: 'POST', headers: { 'x-mcpx-by': 'cli' } })).status).toBe(
      200,
    );
    expect((await app.request(`/v1/elicit/${b.id}/cancel`, { method: 'POST' })).status).toBe(200);
    for (const by of ['policy', 'expiry', 'someone']) {
      const refused = await app.request(`/v1/elicit/${c.id}/cancel`, { method: 'POST', headers: { 'x-mcpx-by': by } });
      expect(refused.status, by).toBe(400);
    }
    expect((await broker.lookup(a.id))?.by).toBe('cli');
    expect((await broker.lookup(b.id))?.by).toBe('http');
    expect(await broker.lookup(c.id)).toBeUndefined();
    const answered = (await broker.audit({})).filter((e) => e.kind === 'elicit.answered').map((e) => [e.elicit, e.by]);
    expect(answered).toEqual(
      expect.arrayContaining([
        [a.id, 'cli'],
        [b.id, 'http'],
      ]),
    );
  });

  it('records the answering process and user named in X-Mcpx-Pid and X-Mcpx-User, with the daemon as the relay (§6b)', async () => {
    const [relayed, direct, bad] = await Promise.all([
      broker.openRequest(question),
      broker.openRequest(question),
      broker.openRequest(question),
    ]);
    const headers = { 'x-mcpx-by': 'cli', 'x-mcpx-pid': '424242', 'x-mcpx-user': 'ana' };
    expect((await app.request(`/v1/elicit/${relayed.id}/decline`, { method: 'POST', headers })).status).toBe(200);
    expect((await app.request(`/v1/elicit/${direct.id}/decline`, { method: 'POST' })).status).toBe(200);
    expect((await app.request(`/v1/elicit/${bad.id}/decline`, { method: 'POST', headers: { 'x-mcpx-pid': 'me' } })).status).toBe(
      400,
    );
    expect(await broker.lookup(relayed.id)).toMatchObject({ pid: 424242, user: 'ana', by: 'cli' });
    expect(await broker.lookup(direct.id)).toMatchObject({ pid: process.pid });
    expect((await broker.lookup(direct.id))?.user).toBeUndefined();
    const [event] = (await broker.audit({ elicit: relayed.id })).filter((e) => e.kind === 'elicit.answered');
    expect(event).toMatchObject({ pid: 424242, data: { relayedBy: process.pid, user: 'ana' } });
    expect(await broker.lookup(bad.id)).toBeUndefined();
  });

  it('keeps decline and cancel apart', async () => {
    const a = await broker.openRequest(question);
    const b = await broker.openRequest(question);
    const declined = (await (await app.request(`/v1/elicit/${a.id}/decline`, { method: 'POST' })).json()) as {
      answer: { action: string };
    };
    const cancelled = (await (await app.request(`/v1/elicit/${b.id}/cancel`, { method: 'POST' })).json()) as {
      answer: { action: string };
    };
    expect(declined.answer.action).toBe('decline');
    expect(cancelled.answer.action).toBe('cancel');
  });

  it('answers 410 once the deadline has passed (the broker answered cancel)', async () => {
    const opened = await broker.openRequest(question);
    clock.advance(120_001);
    const response = await app.request(`/v1/elicit/${opened.id}/accept`, {
      method: 'POST',
      body: JSON.stringify({ content: { repo: 'me/thing' } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(410);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('ELICITATION_EXPIRED');
    expect(await broker.lookup(opened.id)).toMatchObject({ action: 'cancel', by: 'expiry' });
  });

  it('answers 404 for an unknown question and 400 for a malformed id', async () => {
    const unknown = await app.request('/v1/elicit/elc-0000000000000000/decline', { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('ELICITATION_NOT_FOUND');
    expect((await app.request('/v1/elicit/elc-0000000000000000')).status).toBe(404);
    const malformed = await app.request('/v1/elicit/nope');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe('REQUEST_INVALID');
  });

  it('answers 415 for a body not sent as JSON and 400 for malformed JSON, and calls nothing', async () => {
    const plain = await app.request('/v1/call/fx/ask_form', { method: 'POST', body: '{"title":"x"}' });
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as { error: { code: string; message: string } }).error.message).toContain(
      'Content-Type: application/json',
    );
    const broken = await app.request('/v1/call/fx/ask_form', {
      method: 'POST',
      body: '{title',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    const notObject = await app.request('/v1/call/fx/ask_form', {
      method: 'POST',
      body: '[1]',
      headers: { 'content-type': 'application/json' },
    });
    expect(notObject.status).toBe(400);
    expect(tasks.active()).toBe(0);
  });

  it('answers 404 for an unknown task', async () => {
    const response = await app.request('/v1/tasks/tsk-0000000000000000');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('TASK_NOT_FOUND');
  });

  it('maps a call that fails to connect to its error status', async () => {
    const response = await app.request('/v1/call/nowhere/tool', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { code: string; data: { task: string } } };
    expect(body.error.code).toBe('SERVER_NOT_FOUND');
    expect(body.error.data.task).toMatch(/^tsk-[0-9a-f]{16}$/);
  });

  it('reports health', async () => {
    const body = (await (await app.request('/v1/health')).json()) as Record<string, unknown>;
    expect(body).toEqual({ pid: 1, version: '0.1.0', startedAt: 0, activeCalls: 0 });
  });

  it('streams elicit.open and elicit.answered as server-sent events', async () => {
    const response = await app.request('/v1/events');
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = readSse(response);
    expect((await events.next()).event).toBe('ready');
    const opened = await broker.openRequest(question);
    await app.request(`/v1/elicit/${opened.id}/decline`, { method: 'POST' });
    const open = await events.next();
    const answered = await events.next();
    expect(open.event).toBe('elicit.open');
    expect(JSON.parse(open.data)).toMatchObject({ kind: 'elicit.open', elicit: opened.id });
    expect(answered.event).toBe('elicit.answered');
    expect(JSON.parse(answered.data)).toMatchObject({
      kind: 'elicit.answered',
      elicit: opened.id,
      action: 'decline',
      by: 'http',
    });
    await events.close();
  });

  it('filters events by kind', async () => {
    const events = readSse(await app.request('/v1/events?kinds=elicit.answered'));
    expect((await events.next()).event).toBe('ready');
    const opened = await broker.openRequest(question);
    await broker.respond({ id: opened.id, action: 'cancel', by: 'cli' });
    expect((await events.next()).event).toBe('elicit.answered');
    await events.close();
  });

  it('replays the audit log from ?since before live events, each event once', async () => {
    const before = await broker.openRequest(question);
    await broker.respond({ id: before.id, action: 'decline', by: 'cli' });
    const events = readSse(await app.request(`/v1/events?since=${before.createdAt}&kinds=elicit.open,elicit.answered`));
    expect((await events.next()).event).toBe('ready');
    const replayed = [await events.next(), await events.next()].map((e) => [
      e.event,
      (JSON.parse(e.data) as { elicit: string }).elicit,
    ]);
    expect(replayed).toEqual([
      ['elicit.open', before.id],
      ['elicit.answered', before.id],
    ]);
    const after = await broker.openRequest(question);
    const live = await events.next();
    expect([live.event, (JSON.parse(live.data) as { elicit: string }).elicit]).toEqual(['elicit.open', after.id]);
    await events.close();
  });

  it('needs the bearer token when one is set', async () => {
    const guarded = createApp({
      broker,
      tasks,
      info: { pid: 1, version: '0.1.0', startedAt: 0 },
      defaultSession: 's1',
      token: 'secret',
    });
    const refused = await guarded.request('/v1/health');
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    expect((await guarded.request('/v1/health', { headers: { authorization: 'Bearer wrong!' } })).status).toBe(401);
    expect((await guarded.request('/v1/health', { headers: { authorization: 'Bearer secret' } })).status).toBe(200);
  });
});

describe('OpenAPI document', () => {
  it('passes an OpenAPI validator, with 202 on the call path and an Elicitation component', async () => {
    const broker = createBroker();
    const tasks = createTaskRunner({
      broker,
      store: createTaskStore(broker.store.keyv),
      host: () => Promise.reject(new Error('unused')),
    });
    const app = createApp({ broker, tasks, info: { pid: 1, version: '0.1.0', startedAt: 0 }, defaultSession: 's1' });
    const doc = (await (await app.request('/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
      components: { schemas: Record<string, unknown> };
    };
    const result = await new Validator().validate(doc as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    const call = doc.paths['/v1/call/{server}/{tool}']!.post!;
    expect(Object.keys(call.responses)).toEqual(expect.arrayContaining(['200', '202', '404', '422']));
    expect(Object.keys(call.responses['202']!.headers ?? {})).toEqual(expect.arrayContaining(['Location', 'Retry-After']));
    expect(doc.components.schemas.Elicitation).toBeDefined();
    const headerParams = (path: string, method: string) =>
      (
        (
          doc.paths[path]![method] as unknown as {
            parameters?: Array<{ in: string; name: string; schema?: { enum?: string[] } }>;
          }
        ).parameters ?? []
      ).filter((p) => p.in === 'header');
    expect(headerParams('/v1/call/{server}/{tool}', 'post').find((p) => p.name === 'x-mcpx-elicit')?.schema?.enum).toEqual([
      'ask',
      'auto',
      'decline',
      'error',
    ]);
    expect(headerParams('/v1/elicit/{id}/accept', 'post').find((p) => p.name === 'x-mcpx-by')?.schema?.enum).not.toContain(
      'policy',
    );
    for (const path of [
      '/v1/elicit',
      '/v1/elicit/{id}',
      '/v1/elicit/{id}/accept',
      '/v1/elicit/{id}/decline',
      '/v1/elicit/{id}/cancel',
      '/v1/tasks/{id}',
      '/v1/events',
      '/v1/health',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    await tasks.close();
    await broker.close();
  });
});
