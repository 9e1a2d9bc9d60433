/**
 * Who may use the daemon's TCP port: a bearer token holder for everything; a browser signed in to the web inbox
 * (session cookie) only to list, follow and answer questions, and to change state only from the inbox's own
 * origin with its CSRF token. The page shell and its assets need no sign-in: they hold no data.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { bearerIn } from '../../bearer.js';
import { errorBody } from '../errors.js';
import { cookieName, csrfMatches, type WebAuth } from './auth.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set when the request comes from a browser signed in to the web inbox: its answers are recorded `by: 'web'`. */
    mcpxVia: 'web';
    /** Set when the request carries the daemon's bearer token: an operator, over every session's questions. */
    mcpxOperator: true;
  }
}

const PUBLIC = [/^\/ui\/?$/, /^\/ui\/history\/?$/, /^\/ui\/assets\/[a-z0-9.-]+$/];
const EXCHANGE = /^\/ui\/session$/;
/** What a signed-in browser may reach, by method. */
const BROWSER_READ = [
  /^\/v1\/elicit$/,
  /^\/v1\/elicit\/elc-[0-9a-f]{16}$/,
  /^\/v1\/events$/,
  /^\/ui\/session$/,
  /^\/ui\/api\/history$/,
];
const BROWSER_WRITE = [/^\/v1\/elicit\/elc-[0-9a-f]{16}\/(accept|decline|cancel)$/, /^\/ui\/session$/];

const SAFE = new Set(['GET', 'HEAD']);

/** The origin a page served by this request's host has. */
export function ownOrigin(c: Context): string {
  return `${new URL(c.req.url).protocol}//${c.req.header('host') ?? ''}`;
}

/** true when a state-changing browser request comes from the inbox's own origin (CSRF guard, part one). */
export function sameOrigin(c: Context): boolean {
  return c.req.header('origin') === ownOrigin(c);
}

export function accessGuard(token: string, web: WebAuth | undefined): MiddlewareHandler {
  const unauthorized = (c: Context) =>
    c.json(
      errorBody(
        'UNAUTHORIZED',
        'This port needs `Authorization: Bearer <token>` (the token is in the daemon state file), or a browser signed in with a link from `mcpx elicit web`; the unix socket needs none.',
      ),
      401,
    );
  return async (c, next) => {
    if (bearerIn(c.req.header('authorization'), [token]) !== undefined) {
      c.set('mcpxOperator', true);
      return next();
    }
    if (!web) return unauthorized(c);
    const path = c.req.path;
    const host = c.req.header('host');
    if (!web.hostAllowed(host)) {
      return c.json(
        errorBody(
          'HOST_REFUSED',
          `The web inbox answers on loopback names only (127.0.0.1, localhost), not ${JSON.stringify(host ?? '')}.`,
        ),
        403,
      );
    }
    if (SAFE.has(c.req.method) && PUBLIC.some((p) => p.test(path))) return next();
    if (c.req.method === 'POST' && EXCHANGE.test(path)) return next();
    const session = web.session(getCookie(c, cookieName(host)));
    if (!session) return unauthorized(c);
    const safe = SAFE.has(c.req.method);
    if (!(safe ? BROWSER_READ : BROWSER_WRITE).some((p) => p.test(path))) {
      return c.json(
        errorBody(
          'WEB_FORBIDDEN',
          'A browser signed in to the web inbox may list, follow and answer questions only; use the bearer token for the rest of the API.',
        ),
        403,
      );
    }
    if (!safe && !(sameOrigin(c) && csrfMatches(session, c.req.header('x-mcpx-csrf')))) {
      return c.json(
        errorBody(
          'CROSS_SITE_REFUSED',
          'Refused: this request did not come from the web inbox page itself (Origin or CSRF token missing or wrong).',
        ),
        403,
      );
    }
    c.set('mcpxVia', 'web');
    return next();
  };
}
