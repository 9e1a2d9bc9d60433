/**
 * The web inbox's routes on the daemon app: the page (`GET /ui`), its assets, the sign-in exchange, the history
 * summary, and `POST /ui/code` (bearer token or unix socket only) that `mcpx elicit web` calls for a sign-in link
 * (over the socket it also opens the daemon's loopback port when there is none yet) or, with `pair`, a pairing link
 * for another device; the paired devices are listed and revoked at `/ui/devices` (socket or token only).
 */
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Broker } from '../../../broker/index.js';
import { errorBody } from '../errors.js';
import { readAsset } from './assets.js';
import { McpxError } from '../../../errors.js';
import { cookieName, type WebAuth } from './auth.js';
import { DEVICE_COOKIE_MAX_AGE_S, type DeviceRegistry } from './devices.js';
import { requestHost, requestProtocol, sameOrigin } from './gate.js';
import type { ListenRequest } from './listen.js';
import { summarizeHistory } from './history.js';

export interface WebRouteDeps {
  web: WebAuth;
  broker: Broker;
  clock: () => number;
  /** The daemon's loopback port, opened on first need; absent where there is none to open (inline, tests). */
  openPort?: () => Promise<number>;
  /** Paired devices, kept in the state store. */
  devices?: DeviceRegistry;
  /** Opens the daemon's listener for phones (or finds the one open) and says its address (the socket app). */
  openRemote?: (request: ListenRequest | undefined) => Promise<string>;
  /** This app is the listener for phones: only pairing codes are traded here. */
  remote?: boolean;
}

const forbiddenToBrowsers = (c: Context) =>
  c.json(errorBody('WEB_FORBIDDEN', 'A signed-in browser cannot mint sign-in codes or manage devices.'), 403);

/** A name for a device paired without one: what its user agent says it is. */
function deviceName(userAgent: string): string {
  return /iPhone|iPad|Android|Macintosh|Windows|Linux|CrOS/.exec(userAgent)?.[0] ?? 'a browser';
}

const DAY_MS = 24 * 60 * 60_000;

// No inline script or style, nothing from elsewhere, never framed; the page sends no Referer anywhere.
const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

function asset(c: Context, name: string): Response {
  const found = readAsset(name);
  if (!found) return c.json(errorBody('NOT_FOUND', `No asset ${name}`), 404);
  return new Response(new Uint8Array(found.body), { status: 200, headers: { ...PAGE_HEADERS, 'content-type': found.type } });
}

export function mountWebRoutes(app: Hono<any>, deps: WebRouteDeps): void {
  const { web } = deps;
  app.get('/ui', (c) => asset(c, 'index.html'));
  app.get('/ui/', (c) => asset(c, 'index.html'));
  app.get('/ui/history', (c) => asset(c, 'index.html'));
  app.get('/ui/assets/:name', (c) => asset(c, c.req.param('name')));

  app.post('/ui/code', async (c) => {
    if (c.get('mcpxVia') === 'web') return forbiddenToBrowsers(c);
    const body = ((await c.req.json().catch(() => undefined)) ?? {}) as { pair?: { name?: unknown; listen?: ListenRequest } };
    if (body.pair) {
      if (!deps.openRemote || !deps.devices)
        throw new McpxError('LISTEN_INVALID', 'Pairing is asked of the daemon over its unix socket (mcpx elicit web --pair).');
      const base = await deps.openRemote(body.pair.listen);
      const { code, expiresAt } = web.mintPairing(typeof body.pair.name === 'string' ? body.pair.name : '');
      return c.json({ code, expiresAt, path: `/ui#code=${code}`, url: `${base}/ui#code=${code}` }, 200);
    }
    const port = deps.openPort ? await deps.openPort() : undefined;
    const { code, expiresAt } = web.mintCode();
    return c.json({ code, expiresAt, path: `/ui#code=${code}`, ...(port !== undefined ? { port } : {}) }, 200);
  });

  app.post('/ui/session', async (c) => {
    if (!sameOrigin(c)) return c.json(errorBody('CROSS_SITE_REFUSED', 'Sign in from the inbox page itself.'), 403);
    const body = (await c.req.json().catch(() => undefined)) as { code?: unknown } | undefined;
    const code = typeof body?.code === 'string' ? body.code : undefined;
    const session = code !== undefined && !deps.remote ? web.exchange(code) : undefined;
    const pairing = code !== undefined && !session && deps.devices ? web.takePairing(code) : undefined;
    if (pairing) return pairDevice(c, pairing.name);
    if (!session) {
      return c.json(
        errorBody('WEB_CODE_INVALID', 'This sign-in link was used already or has expired: run `mcpx elicit web` for a new one.'),
        401,
      );
    }
    setSessionCookie(c, session.id, Math.floor((session.expiresAt - deps.clock()) / 1000));
    c.header('cache-control', 'no-store');
    return c.json({ csrf: session.csrf, expiresAt: session.expiresAt }, 200);
  });

  const pairDevice = async (c: Context, name: string) => {
    const userAgent = c.req.header('user-agent') ?? '';
    const { credential } = await deps.devices!.pair(name || deviceName(userAgent), userAgent);
    const paired = await deps.devices!.verify(credential);
    setSessionCookie(c, credential, DEVICE_COOKIE_MAX_AGE_S);
    c.header('cache-control', 'no-store');
    return c.json({ csrf: paired!.session.csrf, expiresAt: paired!.session.expiresAt }, 200);
  };

  app.get('/ui/devices', async (c) => {
    if (c.get('mcpxVia') === 'web' || !deps.devices) return forbiddenToBrowsers(c);
    return c.json({ devices: await deps.devices.list() }, 200);
  });

  app.delete('/ui/devices/:id', async (c) => {
    if (c.get('mcpxVia') === 'web' || !deps.devices) return forbiddenToBrowsers(c);
    const id = c.req.param('id');
    if (!(await deps.devices.revoke(id)))
      return c.json(errorBody('NOT_FOUND', `No paired device ${id}; mcpx elicit web --devices lists them.`), 404);
    return c.json({ revoked: id }, 200);
  });

  app.get('/ui/session', async (c) => {
    const session = c.get('mcpxWebSession') ?? web.session(readSessionId(c));
    if (!session) return c.json(errorBody('UNAUTHORIZED', 'Not signed in: open a link from `mcpx elicit web`.'), 401);
    c.header('cache-control', 'no-store');
    return c.json({ csrf: session.csrf, expiresAt: session.expiresAt }, 200);
  });

  app.delete('/ui/session', async (c) => {
    const id = readSessionId(c);
    if (id) web.end(id);
    // A paired device that signs out is forgotten: pairing it again takes a new link.
    if (c.get('mcpxRevoked')) await deps.devices?.revoke(c.get('mcpxWebSession').id);
    deleteCookie(c, cookieName(requestHost(c)), { path: '/' });
    return c.json({ signedOut: true }, 200);
  });

  app.get('/ui/api/history', async (c) => {
    const days = Number(c.req.query('days') ?? 7);
    if (!(days > 0 && days <= 365))
      return c.json(errorBody('REQUEST_INVALID', '`days` takes a number of days between 0 and 365.'), 400);
    const until = deps.clock();
    const since = until - days * DAY_MS;
    const events = await deps.broker.audit({ since });
    return c.json(summarizeHistory(events, { since, until }), 200);
  });
}

function readSessionId(c: Context): string | undefined {
  return getCookie(c, cookieName(requestHost(c)));
}

/** HttpOnly, SameSite=Strict, and Secure whenever the browser reached the inbox over TLS. */
function setSessionCookie(c: Context, value: string, maxAge: number): void {
  setCookie(c, cookieName(requestHost(c)), value, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    maxAge,
    secure: requestProtocol(c) === 'https:',
  });
}
