/**
 * Who a request to `mcpx serve --http` is, and which session it may act in. The principal is the bearer token the
 * request carries (with --no-auth, on loopback only, every caller is one and the same). A session belongs to the
 * principal that first acted in it in this process: another principal naming it in X-Mcpx-Session is refused, so
 * a header anyone can set never opens someone else's questions. Without the header, the first token (or, with
 * --no-auth, everyone) acts in serve's own session, and each other token in one of its own.
 */
import { createHash } from 'node:crypto';
import { bearerIn } from '../bearer.js';

/** How requests are authenticated: the accepted tokens, or nobody at all (`--no-auth`, loopback only). */
export type ServeAuth = { tokens: readonly string[] } | { none: true };

export type SessionChoice = { session: string } | { refused: string };

export interface Principals {
  /** The request's principal, or undefined when it carries no accepted token. */
  of(authorization: string | undefined): string | undefined;
  /** The session a request of `principal` acts in: the one it names, else its own; refused when another's. */
  session(principal: string, named: string | undefined): SessionChoice;
  /** A session of one principal's own (a legacy MCP session's, when it names none), claimed at once. */
  fresh(principal: string, session: string): void;
  /** Forgets a session made by fresh (its MCP session ended). */
  release(session: string): void;
}

const ANONYMOUS = 'anonymous';

export function createPrincipals(auth: ServeAuth, defaultSession: string): Principals {
  const tokens = 'tokens' in auth ? auth.tokens : [];
  const idOf = (token: string): string => `token-${createHash('sha256').update(token).digest('hex').slice(0, 12)}`;
  const ids = new Map(tokens.map((token) => [token, idOf(token)]));
  const first = tokens[0] === undefined ? ANONYMOUS : idOf(tokens[0]);
  const ownSession = (principal: string): string => (principal === first ? defaultSession : `serve-${principal}`);
  const owners = new Map<string, string>([[defaultSession, first]]);
  for (const id of ids.values()) if (id !== first) owners.set(ownSession(id), id);
  return {
    of: (authorization) => {
      if ('none' in auth) return ANONYMOUS;
      const token = bearerIn(authorization, tokens);
      return token === undefined ? undefined : ids.get(token);
    },
    session(principal, named) {
      const session = named?.trim() || ownSession(principal);
      const owner = owners.get(session);
      if (owner === undefined) owners.set(session, principal);
      else if (owner !== principal)
        return {
          refused: `Forbidden: session ${JSON.stringify(session)} belongs to another caller of this server (another bearer token); its questions are not yours to list or answer. Name a session of your own in X-Mcpx-Session, or send none`,
        };
      return { session };
    },
    fresh: (principal, session) => void owners.set(session, principal),
    release: (session) => void owners.delete(session),
  };
}
