/**
 * What a modern request of the pool carries beyond its params: a progress token that routes its notifications
 * back to the call, and the SEP-2243 `Mcp-Param-*` headers built from the tool's schema. Shared by the pool's
 * calls, resumes and relays, so each is built one way.
 */
import type { ModernCallOptions } from '../modern-call.js';
import type { CallNotifications } from '../outcome.js';
import { paramHeaders } from '../param-headers.js';
import type { Connections, Pooled } from './connections.js';
import type { Listings } from './listings.js';

export interface RequestMeta {
  /** A modern request's notifications routed to it by its token until the returned untrack. */
  follow(pooled: Pooled, token: string, notifications: CallNotifications): () => void;
  /**
   * SEP-2243: a modern tool call carries `Mcp-Param-*` headers built from the tool's schema, in every round.
   * The schema is known before the first request (listed on a miss); a -32020 re-lists and sends once more.
   */
  toolHeaders(
    server: string,
    pooled: Pooled,
    tool: string,
    args: Record<string, unknown>,
  ): Pick<ModernCallOptions, 'headers' | 'onHeaderMismatch'>;
}

export function createRequestMeta(connections: Connections, listings: Listings): RequestMeta {
  const { onProbation, routes } = connections;
  const { listTools } = listings;

  const follow = (pooled: Pooled, token: string, notifications: CallNotifications): (() => void) => {
    routes.set(token, notifications);
    if (notifications.logLevel) pooled.logging.add(token);
    return () => {
      routes.delete(token);
      pooled.logging.delete(token);
    };
  };

  const toolHeaders = (
    server: string,
    pooled: Pooled,
    tool: string,
    args: Record<string, unknown>,
  ): Pick<ModernCallOptions, 'headers' | 'onHeaderMismatch'> => ({
    headers: async () => {
      if (!pooled.connection.carriesHeaders) return undefined;
      // Listed first on a miss; not while a cached era is on probation (the call itself must prove it, and run once).
      if (!pooled.tools && !onProbation(pooled)) await listTools(server).catch(() => undefined);
      const scan = pooled.tools?.get(tool);
      return scan?.valid ? paramHeaders(scan.declarations, args) : undefined;
    },
    onHeaderMismatch: async () => {
      if (!pooled.connection.carriesHeaders) return;
      pooled.tools = undefined;
      await listTools(server, { refresh: true }).catch(() => undefined);
    },
  });

  return { follow, toolHeaders };
}

/**
 * Whether a modern request is to ask for notifications: read as it is sent, since a call's receiver may change
 * between rounds (mcpx serve points a resumed call at the client's retry, which may want what the first did not).
 */
export function wants(notifications: CallNotifications | undefined): notifications is CallNotifications {
  return Boolean(notifications?.onProgress || notifications?.logLevel);
}
