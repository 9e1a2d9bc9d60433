/**
 * The web inbox's routes on the daemon app: the page (`GET /ui`), its assets, the sign-in exchange, the history
 * summary, and `POST /ui/code` (bearer token or unix socket only) that `mcpx elicit web` calls for a sign-in link
 * (over the socket it also opens the daemon's loopback port when there is none yet).
 */
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Broker } from '../../../broker/index.js';
import { errorBody } from '../errors.js';
import { readAsset } from './assets.js';
import { cookieName, type WebAuth } from './auth.js';
import { sameOrigin } from './gate.js';
import { summarizeHistory } from './history.js';

export interface WebRouteDeps {
  web: WebAuth;
  broker: Broker;
  clock: () => number;
  /** The daemon's loopback port, opened on first need; absent where there is none to open (inline, tests). */
  openPort?: () => Promise<number>;
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
    if (c.get('mcpxVia') === 'web')
      return c.json(errorBody('WEB_FORBIDDEN', 'A signed-in browser cannot mint sign-in codes.'), 403);
    const port = deps.openPort ? await deps.openPort() : undefined;
    const { code, expiresAt } = web.mintCode();
    return c.json({ code, expiresAt, path: `/ui#code=${code}`, ...(port !== undefined ? { port } : {}) }, 200);
  });

  app.post('/ui/session', async (c) => {
    if (!sameOrigin(c)) return c.json(errorBody('CROSS_SITE_REFUSED', 'Sign in from the inbox page itself.'), 403);
    const body = (await c.req.json().catch(() => undefined)) as { code?: unknown } | undefined;
    const session = typeof body?.code === 'string' ? web.exchange(body.code) : undefined;
    if (!session) {
      return c.json(
        errorBody('WEB_CODE_INVALID', 'This sign-in link was used already or has expired: run `mcpx elicit web` for a new one.'),
        401,
      );
    }
    setCookie(c, cookieName(c.req.header('host')), session.id, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: Math.floor((session.expiresAt - deps.clock()) / 1000),
      secure: new URL(c.req.url).protocol === 'https:',
    });
    c.header('cache-control', 'no-store');
    return c.json({ csrf: session.csrf, expiresAt: session.expiresAt }, 200);
  });

  app.get('/ui/session', (c) => {
    const session = web.session(readSessionId(c));
    if (!session) return c.json(errorBody('UNAUTHORIZED', 'Not signed in: open a link from `mcpx elicit web`.'), 401);
    c.header('cache-control', 'no-store');
    return c.json({ csrf: session.csrf, expiresAt: session.expiresAt }, 200);
  });

  app.delete('/ui/session', (c) => {
    const id = readSessionId(c);
    if (id) web.end(id);
    deleteCookie(c, cookieName(c.req.header('host')), { path: '/' });
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
  return getCookie(c, cookieName(c.req.header('host')));
}
