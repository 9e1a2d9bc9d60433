/**
 * Upstream connections of a session's own (ServeCore.ownConnections): a legacy upstream declares its client's
 * capabilities once, at initialize, so a client that declared sampling or roots gets connections that declare
 * them too, forwarding those requests to that client alone. At most one set per session.
 */
import type { ServerRequestForwarding } from '../../client/index.js';
import type { Mcpx } from '../../mcpx.js';

export interface OwnConnections {
  /** The session's own connections, if it holds some; its calls run on them. */
  of(session: string): Promise<Mcpx> | undefined;
  /** Opens the session's connections; resolves the release, or undefined when the session already holds some. */
  hold(session: string, forward: ServerRequestForwarding): (() => Promise<void>) | undefined;
  /** Closes every session's connections. */
  close(): Promise<void>;
}

export function createOwnConnections(open: (forward: ServerRequestForwarding) => Promise<Mcpx>): OwnConnections {
  /** Sessions with connections of their own. */
  const sessionHosts = new Map<string, Promise<Mcpx>>();
  return {
    of: (session) => sessionHosts.get(session),
    hold(session, forward) {
      if (sessionHosts.has(session)) return undefined;
      // Opened lazily per server like the shared ones; a legacy call of this session runs on them.
      const own = open(forward);
      sessionHosts.set(session, own);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        if (sessionHosts.get(session) === own) sessionHosts.delete(session);
        await (await own).close().catch(() => undefined);
      };
    },
    async close() {
      await Promise.all([...sessionHosts.values()].map(async (own) => (await own).close().catch(() => undefined)));
    },
  };
}
