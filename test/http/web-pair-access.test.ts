/**
 * The web inbox's listener for paired devices, on the app itself: behind a reverse proxy X-Forwarded-* count only
 * when the user said so; the listener takes no bearer token and no loopback sign-in; a pairing link works once and
 * expires; the store keeps no credential; and the address checks that refuse plain HTTP off loopback.
 */
import Keyv from 'keyv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBroker, createManualClock, type StoreBroker } from '../../src/broker/index.js';
import { createApp } from '../../src/surfaces/http/app.js';
import { createWebAuth } from '../../src/surfaces/http/web/auth.js';
import { createDeviceRegistry } from '../../src/surfaces/http/web/devices.js';
import { planListen, publicAddress } from '../../src/surfaces/http/web/listen.js';
import type { TaskRunner } from '../../src/tasks/runner.js';

const PUBLIC = 'https://inbox.example.com';
const TOKEN = 't'.repeat(64);
const tasks = { taskOfCall: () => undefined, isAmbiguous: () => false, active: () => 0 } as unknown as TaskRunner;
// What a proxy in front sends: the public host and scheme in X-Forwarded-*, its own connection to 127.0.0.1:8080.
const PROXIED = { host: '127.0.0.1:8080', 'x-forwarded-host': 'inbox.example.com', 'x-forwarded-proto': 'https', origin: PUBLIC };

describe('the web inbox for paired devices', () => {
  let broker: StoreBroker;
  let kv: Keyv;
  let clock: ReturnType<typeof createManualClock>;
  let socketApp: ReturnType<typeof createApp>;
  const remoteApp = (trustProxy: boolean) => createApp({ ...deps(), remote: { hosts: ['inbox.example.com'], trustProxy } });
  let deps: () => Parameters<typeof createApp>[0];

  beforeEach(() => {
    clock = createManualClock(1_000_000);
    broker = createBroker({ allowAnySession: true });
    kv = new Keyv();
    const web = createWebAuth({ clock: clock.now });
    const devices = createDeviceRegistry(kv, clock.now);
    const shared = {
      broker,
      tasks,
      info: { pid: 1, version: 't', startedAt: 0 },
      defaultSession: 'd',
      web,
      devices,
      clock: clock.now,
    };
    deps = () => shared;
    socketApp = createApp({ ...shared, openRemote: async () => PUBLIC });
  });
  afterEach(() => broker.close());

  const pairingCode = async (name = 'phone'): Promise<string> => {
    const response = await socketApp.request('/ui/code', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pair: { name } }),
    });
    const body = (await response.json()) as { code: string; url: string };
    expect(body.url).toBe(`${PUBLIC}/ui#code=${body.code}`);
    return body.code;
  };
  const exchange = (app: ReturnType<typeof createApp>, code: string, headers: Record<string, string> = PROXIED) =>
    app.request('http://127.0.0.1:8080/ui/session', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });

  it('pairs behind a proxy it was told of: the public origin from X-Forwarded-*, a Secure cookie', async () => {
    const app = remoteApp(true);
    const paired = await exchange(app, await pairingCode());
    expect(paired.status).toBe(200);
    const cookie = paired.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const list = await app.request('http://127.0.0.1:8080/v1/elicit', { headers: { ...PROXIED, cookie: cookie.split(';')[0]! } });
    expect(list.status).toBe(200);
    // The store holds the device and a digest, never the credential the cookie carries.
    const secret = cookie.split(';')[0]!.split('.')[1]!;
    expect(JSON.stringify(await kv.get('web-devices'))).not.toContain(secret);
    expect(JSON.stringify(await kv.get('web-devices'))).toContain('"name":"phone"');
  });

  it('answers with its CSRF token after a reload, and signing out forgets the device', async () => {
    const app = remoteApp(true);
    const paired = await exchange(app, await pairingCode());
    const { csrf } = (await paired.json()) as { csrf: string };
    const cookie = paired.headers.get('set-cookie')!.split(';')[0]!;
    const as = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
      app.request(`http://127.0.0.1:8080${path}`, { ...init, headers: { ...PROXIED, cookie, ...init.headers } });
    const reloaded = await as('/ui/session');
    expect(((await reloaded.json()) as { csrf: string }).csrf).toBe(csrf);
    const { id } = await broker.openRequest({
      trace: 'cal-0000000000000001',
      server: 's',
      tool: 't',
      mode: 'form',
      era: 'modern',
      message: 'ok?',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    expect((await as(`/v1/elicit/${id}/decline`, { method: 'POST' })).status).toBe(403);
    const declined = await as(`/v1/elicit/${id}/decline`, { method: 'POST', headers: { 'x-mcpx-csrf': csrf } });
    expect(declined.status).toBe(200);
    expect((await broker.lookup(id))?.by).toBe('web');
    // Last seen moves when the device comes back after a while (written at most once a minute).
    const seen = async () =>
      ((await (await socketApp.request('/ui/devices')).json()) as { devices: Array<{ lastSeenAt: number }> }).devices[0]!
        .lastSeenAt;
    const pairedAt = await seen();
    clock.advance(90_000);
    expect((await as('/v1/elicit')).status).toBe(200);
    await expect.poll(seen).toBe(pairedAt + 90_000);
    expect((await as('/ui/session', { method: 'DELETE', headers: { 'x-mcpx-csrf': csrf } })).status).toBe(200);
    expect((await as('/v1/elicit')).status).toBe(401);
    expect(await (await socketApp.request('/ui/devices')).json()).toEqual({ devices: [] });
  });

  it('ignores X-Forwarded-* unless told it is behind a proxy', async () => {
    const refused = await exchange(remoteApp(false), await pairingCode());
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('HOST_REFUSED');
  });

  it('takes no bearer token and no loopback sign-in code, and a pairing code once and only in time', async () => {
    const app = remoteApp(true);
    const bearer = await app.request('http://127.0.0.1:8080/v1/elicit', {
      headers: { ...PROXIED, authorization: `Bearer ${TOKEN}` },
    });
    expect(bearer.status).toBe(401);
    const { code: loopbackCode } = (await (await socketApp.request('/ui/code', { method: 'POST' })).json()) as { code: string };
    expect((await exchange(app, loopbackCode)).status).toBe(401);

    const code = await pairingCode();
    expect((await exchange(app, code)).status).toBe(200);
    expect((await exchange(app, code)).status).toBe(401);
    const stale = await pairingCode();
    clock.advance(5 * 60_000 + 1);
    expect((await exchange(app, stale)).status).toBe(401);
  });

  it('refuses plain HTTP off loopback, unless a proxy in front serves https', () => {
    expect(() => planListen({ listen: '0.0.0.0:8443' })).toThrow(/without TLS.*--cert.*--behind-proxy/s);
    expect(() => planListen({ listen: '192.168.1.20:8443', cert: 'c' })).toThrow(/both --cert <file> and --key <file>/);
    expect(() => planListen({ listen: '127.0.0.1:8080', behindProxy: true })).toThrow(/--behind-proxy needs --url/);
    expect(() => planListen({ listen: '127.0.0.1:8080', behindProxy: true, url: 'http://inbox.example.com' })).toThrow(/https/);
    expect(() => planListen({ listen: 'nowhere' })).toThrow(/host:port/);
    const proxied = planListen({ listen: '127.0.0.1:8080', behindProxy: true, url: PUBLIC });
    expect(publicAddress(proxied, 8080)).toEqual({ url: PUBLIC, hosts: ['inbox.example.com', '127.0.0.1'] });
    const tls = planListen({ listen: '192.168.1.20:0', cert: 'c', key: 'k' });
    expect(publicAddress(tls, 8443)).toEqual({ url: 'https://192.168.1.20:8443', hosts: ['192.168.1.20'] });
  });
});
