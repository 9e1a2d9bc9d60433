/**
 * The web inbox's access rules on the app itself (no port, no browser): who may reach what with a bearer token, a
 * session cookie or nothing; the one-time sign-in; answers recorded `by: 'web'`; the history summary.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker, createManualClock, type StoreBroker } from '../../src/broker/index.js';
import { createApp } from '../../src/surfaces/http/app.js';
import { ASSET_NAMES } from '../../src/surfaces/http/web/assets.js';
import { createWebAuth } from '../../src/surfaces/http/web/auth.js';
import { summarizeHistory } from '../../src/surfaces/http/web/history.js';
import type { TaskRunner } from '../../src/tasks/runner.js';

const ORIGIN = 'http://127.0.0.1:4555';
const HOST = '127.0.0.1:4555';
const TOKEN = 't'.repeat(64);

// Only the routes under test run: the answer and list routes touch the task runner for these two lookups.
const tasks = { taskOfCall: () => undefined, isAmbiguous: () => false, active: () => 0 } as unknown as TaskRunner;

describe('web inbox access', () => {
  let broker: StoreBroker;
  let socketApp: ReturnType<typeof createApp>;
  let portApp: ReturnType<typeof createApp>;
  beforeEach(() => {
    broker = createBroker({ allowAnySession: true });
    const web = createWebAuth();
    const deps = { broker, tasks, info: { pid: 1, version: 't', startedAt: 0 }, defaultSession: 'd', web };
    socketApp = createApp(deps);
    portApp = createApp({ ...deps, token: TOKEN });
  });
  afterEach(() => broker.close());

  const req = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    portApp.request(`${ORIGIN}${path}`, { ...init, headers: { host: HOST, ...init.headers } });

  async function signIn(): Promise<{ cookie: string; csrf: string }> {
    const { code } = (await (await socketApp.request('/ui/code', { method: 'POST' })).json()) as { code: string };
    const response = await req('/ui/session', {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(response.status).toBe(200);
    return {
      cookie: response.headers.get('set-cookie')!.split(';')[0]!,
      csrf: ((await response.json()) as { csrf: string }).csrf,
    };
  }

  const ask = () =>
    broker.openRequest({
      trace: 'cal-0000000000000001',
      server: 's',
      tool: 't',
      mode: 'form',
      era: 'modern',
      message: 'ok?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });

  it('serves the page shell to anyone on a loopback name, with no Referer and no inline script', async () => {
    const page = await req('/ui');
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await req('/v1/elicit')).status).toBe(401);
    const rebound = await portApp.request(`http://evil.example:4555/ui`, { headers: { host: 'evil.example:4555' } });
    expect(rebound.status).toBe(403);
    expect(((await rebound.json()) as { error: { code: string } }).error.code).toBe('HOST_REFUSED');
  });

  it('trades a code once, and only from its own origin', async () => {
    const { code } = (await (await socketApp.request('/ui/code', { method: 'POST' })).json()) as { code: string };
    const body = JSON.stringify({ code });
    const headers = { 'content-type': 'application/json' };
    expect(
      (await req('/ui/session', { method: 'POST', headers: { ...headers, origin: 'http://127.0.0.1:9999' }, body })).status,
    ).toBe(403);
    const ok = await req('/ui/session', { method: 'POST', headers: { ...headers, origin: ORIGIN }, body });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('set-cookie')).toMatch(/^mcpx_web_4555=[\w-]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Strict$/);
    expect((await req('/ui/session', { method: 'POST', headers: { ...headers, origin: ORIGIN }, body })).status).toBe(401);
    // Minting needs the socket or the token, never a browser session.
    expect((await req('/ui/code', { method: 'POST' })).status).toBe(401);
    expect((await req('/ui/code', { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('lets a signed-in browser list and answer from its own page only, recorded by web', async () => {
    const { cookie, csrf } = await signIn();
    const question = await ask();
    expect((await req('/v1/elicit', { headers: { cookie } })).status).toBe(200);
    expect((await req('/ui/code', { method: 'POST', headers: { cookie, origin: ORIGIN, 'x-mcpx-csrf': csrf } })).status).toBe(
      403,
    );
    const call = await req('/v1/call/s/t', {
      method: 'POST',
      headers: { cookie, origin: ORIGIN, 'x-mcpx-csrf': csrf, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(call.status).toBe(403);
    const answer = (headers: Record<string, string>) =>
      req(`/v1/elicit/${question.id}/accept`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: '{"content":{"ok":true}}',
      });
    expect((await answer({ origin: ORIGIN })).status).toBe(403);
    expect((await answer({ origin: 'http://localhost:4555', 'x-mcpx-csrf': csrf })).status).toBe(403);
    expect((await answer({ 'x-mcpx-csrf': csrf })).status).toBe(403);
    expect(await broker.lookup(question.id)).toBeUndefined();
    const ok = await answer({ origin: ORIGIN, 'x-mcpx-csrf': csrf, 'x-mcpx-by': 'cli' });
    expect(ok.status).toBe(200);
    expect(await broker.lookup(question.id)).toMatchObject({ action: 'accept', by: 'web' });
    // Signing out ends the session.
    expect(
      (await req('/ui/session', { method: 'DELETE', headers: { cookie, origin: ORIGIN, 'x-mcpx-csrf': csrf } })).status,
    ).toBe(200);
    expect((await req('/v1/elicit', { headers: { cookie } })).status).toBe(401);
  });

  it('keeps the bearer token working as before', async () => {
    const question = await ask();
    const ok = await req(`/v1/elicit/${question.id}/decline`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'x-mcpx-by': 'cli' },
    });
    expect(ok.status).toBe(200);
    expect(await broker.lookup(question.id)).toMatchObject({ action: 'decline', by: 'cli' });
  });

  it('ships page code that never parses text as HTML', () => {
    for (const name of ASSET_NAMES.filter((n) => n.endsWith('.js'))) {
      const source = readFileSync(new URL(`../../src/surfaces/http/web/ui/${name}`, import.meta.url), 'utf8');
      expect(source, name).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    }
  });
});

describe('history summary', () => {
  it('counts how questions ended per server and tool and when they were answered against their TTL', async () => {
    const clock = createManualClock();
    const broker = createBroker({ clock, allowAnySession: true, ttlMs: 100_000 });
    const open = (tool: string) =>
      broker.openRequest({ trace: 'cal-0000000000000001', server: 'gh', tool, mode: 'form', era: 'modern', message: '?' });
    const [a, b, c, d] = [await open('deploy'), await open('deploy'), await open('deploy'), await open('label')];
    clock.advance(10_000);
    await broker.respond({ id: a.id, action: 'accept', content: {}, by: 'web' });
    clock.advance(20_000);
    await broker.respond({ id: b.id, action: 'decline', by: 'cli' });
    await broker.respond({ id: d.id, action: 'cancel', by: 'cli' });
    clock.advance(80_000);
    expect(await broker.awaitAnswer(c.id)).toMatchObject({ action: 'cancel', by: 'expiry' });
    const start = clock.now() - 200_000;
    const history = summarizeHistory(await broker.audit({ since: start }), { since: start, until: clock.now() });
    expect(history.rows.map((r) => [r.server, r.tool, r.asked, r.accepted, r.declined, r.cancelled, r.expired, r.open])).toEqual([
      ['gh', 'deploy', 3, 1, 1, 0, 1, 0],
      ['gh', 'label', 1, 0, 0, 1, 0, 0],
    ]);
    const deploy = history.rows[0]!;
    expect(deploy.ttlMs).toBe(100_000);
    expect(deploy.answers).toEqual([
      { afterMs: 10_000, action: 'accept', ttlMs: 100_000 },
      { afterMs: 30_000, action: 'decline', ttlMs: 100_000 },
    ]);
    expect([deploy.p50Ms, deploy.p90Ms]).toEqual([10_000, 30_000]);
    await broker.close();
  });
});
