/**
 * Signing a browser in to the daemon's web inbox. `mcpx elicit web` mints a one-time code (over the unix socket or
 * with the bearer token) and puts it in the URL fragment, which a browser never sends: the page trades it once for
 * an HttpOnly, SameSite=Strict session cookie and a CSRF token, so the token and the code stay out of logs and
 * Referer headers. Sessions live in the daemon's memory and end with it (as its token does).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export interface WebSession {
  id: string;
  csrf: string;
  expiresAt: number;
}

export interface WebAuthOptions {
  clock?: () => number;
  /** How long a minted code may wait to be used. Default 5 minutes. */
  codeTtlMs?: number;
  /** How long a browser stays signed in. Default 12 hours. */
  sessionTtlMs?: number;
  /** Host names a browser may use to reach the daemon (DNS rebinding guard). Default: the loopback names. */
  hosts?: string[];
}

export interface WebAuth {
  /** A one-time code for a sign-in link. */
  mintCode(): { code: string; expiresAt: number };
  /** Trades a code for a session, once; undefined when the code is unknown, used or stale. */
  exchange(code: string): WebSession | undefined;
  /** A one-time code that pairs a device (`mcpx elicit web --pair`), with the name the device will go by. */
  mintPairing(name: string): { code: string; expiresAt: number };
  /** Takes a pairing code, once: the device's name; undefined when the code is unknown, used or stale. */
  takePairing(code: string): { name: string } | undefined;
  /** The live session a cookie value names. */
  session(id: string | undefined): WebSession | undefined;
  end(id: string): void;
  /** Whether a Host header names a host the inbox answers on. */
  hostAllowed(host: string | undefined): boolean;
}

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

const secret = (): string => randomBytes(32).toString('base64url');

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export function createWebAuth(options: WebAuthOptions = {}): WebAuth {
  const now = options.clock ?? Date.now;
  const codeTtlMs = options.codeTtlMs ?? 5 * 60_000;
  const sessionTtlMs = options.sessionTtlMs ?? 12 * 60 * 60_000;
  const hosts = options.hosts ?? LOOPBACK_HOSTS;
  const codes = new Map<string, number>();
  const pairings = new Map<string, { name: string; expiresAt: number }>();
  const sessions = new Map<string, WebSession>();
  const prune = (): void => {
    const t = now();
    for (const [code, expiresAt] of codes) if (expiresAt <= t) codes.delete(code);
    for (const [code, pairing] of pairings) if (pairing.expiresAt <= t) pairings.delete(code);
    for (const [id, s] of sessions) if (s.expiresAt <= t) sessions.delete(id);
  };
  return {
    mintCode() {
      prune();
      const code = secret();
      const expiresAt = now() + codeTtlMs;
      codes.set(code, expiresAt);
      return { code, expiresAt };
    },
    exchange(code) {
      prune();
      const match = [...codes.keys()].find((known) => same(known, code));
      if (match === undefined) return undefined;
      codes.delete(match);
      const session = { id: secret(), csrf: secret(), expiresAt: now() + sessionTtlMs };
      sessions.set(session.id, session);
      return session;
    },
    mintPairing(name) {
      prune();
      const code = secret();
      const expiresAt = now() + codeTtlMs;
      pairings.set(code, { name, expiresAt });
      return { code, expiresAt };
    },
    takePairing(code) {
      prune();
      const match = [...pairings.keys()].find((known) => same(known, code));
      if (match === undefined) return undefined;
      const { name } = pairings.get(match)!;
      pairings.delete(match);
      return { name };
    },
    session(id) {
      if (!id) return undefined;
      const found = sessions.get(id);
      if (!found || found.expiresAt <= now()) return undefined;
      return found;
    },
    end(id) {
      sessions.delete(id);
    },
    hostAllowed: hostMatcher(hosts),
  };
}

/** Whether a Host header (name, optional port) names one of these hosts. */
export function hostMatcher(names: string[]): (host: string | undefined) => boolean {
  const hosts = new Set(names.map((name) => name.toLowerCase()));
  return (host) => {
    if (!host) return false;
    const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
    return hosts.has(name.toLowerCase());
  };
}

/** The cookie's name carries the port: cookies are not kept apart by port, and two daemons may run on one host. */
export function cookieName(host: string | undefined): string {
  const port = host?.match(/:(\d+)$/)?.[1] ?? '80';
  return `mcpx_web_${port}`;
}

/** true when a CSRF header matches the session's token. */
export function csrfMatches(session: WebSession, given: string | undefined): boolean {
  return given !== undefined && same(session.csrf, given);
}
