/**
 * Which questions a REST request may see and answer (§5.5, §6b): the caller's own session (X-Mcpx-Session, else
 * ?session=, else the daemon's), or every session for an operator: `?all=1`, the daemon's bearer token (the TCP
 * port's master key), or a browser signed in to the web inbox (a sign-in the socket or the token minted).
 */
import type { Context } from 'hono';
import type { CallerScope } from '../../broker/index.js';

export function scopeOf(c: Context, defaultSession: string): CallerScope {
  const session = c.req.header('x-mcpx-session')?.trim() || c.req.query('session')?.trim() || defaultSession;
  const all = c.get('mcpxVia') === 'web' || c.get('mcpxOperator') === true || ['1', 'true'].includes(c.req.query('all') ?? '');
  return { session, all };
}

/** The session a listing is narrowed to: the caller's own, or for an operator the one it names, if any. */
export function listedSession(c: Context, scope: CallerScope): string | undefined {
  return scope.all ? c.req.query('session')?.trim() || undefined : scope.session;
}
