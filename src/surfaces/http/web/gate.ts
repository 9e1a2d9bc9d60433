/**
 * Who may use the daemon's TCP port: a bearer token holder for everything; a browser signed in to the web inbox
 * (session cookie) or a paired device (its own credential) only to list, follow and answer questions, and to change
 * state only from the inbox's own origin with its CSRF token. The page shell and its assets need no sign-in. The
 * listener for phones (`remote`) takes no bearer token and no loopback sign-in: paired devices only.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { bearerIn } from '../../bearer.js';
import { errorBody } from '../errors.js';
import { cookieName, csrfMatches, hostMatcher, type WebAuth, type WebSession } from './auth.js';
import type { DeviceRegistry } from './devices.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set when the request comes from a browser signed in to the web inbox: its answers are recorded `by: 'web'`. */
    mcpxVia: 'web';
    /** Set when the request carries the daemon's bearer token: an operator, over every session's questions. */
    mcpxOperator: true;
    /** Behind a reverse proxy the user configured: X-Forwarded-Proto and -Host say the origin the browser sees. */
    mcpxTrustProxy: true;
    /** The signed-in browser's session or paired device (the device's id as the session id). */
    mcpxWebSession: WebSession;
    /** Set for a paired device: aborted when it is revoked, so its open event streams end. */
    mcpxRevoked: AbortSignal;
  }
}

/** The daemon's listener for phones: the host names it answers to, and whether a reverse proxy fronts it. */
export interface RemoteAccess {
  hosts: string[];
  trustProxy: boolean;
}

export interface GuardOptions {
  devices?: DeviceRegistry;
  remote?: RemoteAccess;
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

const forwarded = (c: Context, name: string): string | undefined =>
  c.get('mcpxTrustProxy') ? c.req.header(name)?.split(',')[0]?.trim() || undefined : undefined;

/** The host the browser addressed: the Host header, or X-Forwarded-Host behind a configured reverse proxy. */
export function requestHost(c: Context): string | undefined {
  return forwarded(c, 'x-forwarded-host') ?? c.req.header('host');
}

/** `https:` or `http:` as the browser sees it (X-Forwarded-Proto only behind a configured reverse proxy). */
export function requestProtocol(c: Context): string {
  const proto = forwarded(c, 'x-forwarded-proto');
  return proto ? `${proto.toLowerCase()}:` : new URL(c.req.url).protocol;
}

/** The origin a page served by this request's host has. */
export function ownOrigin(c: Context): string {
  return `${requestProtocol(c)}//${requestHost(c) ?? ''}`;
}

/** true when a state-changing browser request comes from the inbox's own origin (CSRF guard, part one). */
export function sameOrigin(c: Context): boolean {
  return c.req.header('origin') === ownOrigin(c);
}

export function accessGuard(token: string | undefined, web: WebAuth | undefined, options: GuardOptions = {}): MiddlewareHandler {
  const { devices, remote } = options;
  const remoteHost = remote ? hostMatcher(remote.hosts) : undefined;
  const unauthorized = (c: Context) =>
    c.json(
      errorBody(
        'UNAUTHORIZED',
        remote
          ? 'Only a paired device may use this address: pair one with a link from `mcpx elicit web --pair`.'
          : 'This port needs `Authorization: Bearer <token>` (the token is in the daemon state file), or a browser signed in with a link from `mcpx elicit web`; the unix socket needs none.',
      ),
      401,
    );
  return async (c, next) => {
    if (token !== undefined && bearerIn(c.req.header('authorization'), [token]) !== undefined) {
      c.set('mcpxOperator', true);
      return next();
    }
    if (!web) return unauthorized(c);
    if (remote?.trustProxy) c.set('mcpxTrustProxy', true);
    const path = c.req.path;
    const host = requestHost(c);
    if (!(remoteHost ? remoteHost(host) : web.hostAllowed(host))) {
      return c.json(
        errorBody(
          'HOST_REFUSED',
          remote
            ? `This address answers to ${remote.hosts.join(', ')} only, not ${JSON.stringify(host ?? '')}; pair with --url naming the address the device uses.`
            : `The web inbox answers on loopback names only (127.0.0.1, localhost), not ${JSON.stringify(host ?? '')}.`,
        ),
        403,
      );
    }
    if (SAFE.has(c.req.method) && PUBLIC.some((p) => p.test(path))) return next();
    if (c.req.method === 'POST' && EXCHANGE.test(path)) return next();
    const cookie = getCookie(c, cookieName(host));
    // The phones' listener takes paired devices only; loopback sign-ins stay on loopback.
    let session = remote ? undefined : web.session(cookie);
    if (!session && devices) {
      const device = await devices.verify(cookie);
      if (device) {
        session = device.session;
        c.set('mcpxRevoked', device.revoked);
      }
    }
    if (!session) return unauthorized(c);
    c.set('mcpxWebSession', session);
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
