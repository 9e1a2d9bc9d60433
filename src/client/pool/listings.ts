/**
 * The pool's listings (tools, prompts, resources, templates) and the other requests that never ask (completions,
 * resource subscriptions), with the era checks every first request gets.
 */
import type {
  Client,
  McpSubscription,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/client';
import { McpxError } from '../../errors.js';
import { scanHeaderDeclarations } from '../param-headers.js';
import type { Connections, Pooled } from './connections.js';

export interface Listings {
  listTools(server: string, options?: { refresh?: boolean }): Promise<Tool[]>;
  listPrompts(server: string): Promise<Prompt[]>;
  listResources(server: string): Promise<Resource[]>;
  listResourceTemplates(server: string): Promise<ResourceTemplate[]>;
  /** `completion/complete`, as the server answers it. */
  complete(server: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * Subscribes to (or unsubscribes from) a resource where the server takes it (it declares `resources.subscribe`):
   * `resources/subscribe` on a legacy server, a `subscriptions/listen` stream for that URI on a modern one (closed to
   * unsubscribe). False where it does not, or a modern server's acknowledgement leaves the URI out.
   */
  subscribe(server: string, uri: string, on: boolean): Promise<boolean>;
}

type Fetch<T> = (client: Client, timeout: number) => Promise<T>;

/**
 * Whether the server declared what is about to be listed. Only what it declares is asked for: the SDK's own answer
 * to an undeclared listing is an empty list plus a `console.debug` line, which lands on stdout (serve's wire).
 */
const declares = (client: Client, capability: 'tools' | 'prompts' | 'resources'): boolean =>
  client.getServerCapabilities()?.[capability] !== undefined;

/** A listen the server ends sooner than this after it opened counts as a failure (see relisten). */
const QUICK_END_MS = 1_000;
const RELISTEN_BACKOFF_MS = 250;
const MAX_RELISTEN_BACKOFF_MS = 30_000;
/** Then the subscription is given up (about two minutes of back-off); the next subscriber listens afresh. */
const MAX_RELISTEN_FAILURES = 10;

/**
 * `onResourceUpdated`: told for each subscribed URI once its subscription is back after a gap (a modern server's
 * listen stream ended and was listened again; a legacy server's connection dropped and was subscribed again on a
 * new one): a change during the gap was told to nobody, so the resource may have changed.
 */
export function createListings(connections: Connections, onResourceUpdated?: (server: string, uri: string) => void): Listings {
  const { get, timeoutFor, onFailure, onSuccess } = connections;
  /** The open `subscriptions/listen` streams on modern servers, by server and URI. */
  const listens = new Map<string, { client: Client; subscription: McpSubscription }>();

  /** What is subscribed on modern servers (server and URI): listened to again when the server ends the stream. */
  const wanted = new Set<string>();

  /**
   * One listen stream for the URI (its filter is fixed, so one per URI lets each be closed alone); false when the
   * server leaves the URI out. `failures`: listens in a row that failed or ended at once, for the back-off.
   */
  const listen = async (server: string, uri: string, failures: number): Promise<boolean> => {
    const key = `${server}\u0000${uri}`;
    const { connection } = await get(server);
    const subscription = await connection.client.listen({ resourceSubscriptions: [uri] }, { timeout: timeoutFor(server) });
    if (!subscription.honoredFilter.resourceSubscriptions?.includes(uri)) {
      await subscription.close();
      return false;
    }
    // Unsubscribed (or listened again) while this one opened.
    if (!wanted.has(key) || listens.has(key)) {
      await subscription.close();
      return true;
    }
    const opened = Date.now();
    listens.set(key, { client: connection.client, subscription });
    void subscription.closed.then((how) => {
      if (listens.get(key)?.subscription !== subscription) return;
      listens.delete(key);
      // The server ended it (it shut down, the stream dropped) while someone still wants it: listen again. One that
      // ends at once counts as a failure, so a server that keeps ending them is not asked in a tight loop.
      if (how !== 'local' && wanted.has(key)) relisten(server, uri, Date.now() - opened < QUICK_END_MS ? failures + 1 : 0);
    });
    return true;
  };

  const relisten = (server: string, uri: string, failures: number): void => {
    const key = `${server}\u0000${uri}`;
    if (failures > MAX_RELISTEN_FAILURES) return void wanted.delete(key);
    const delay = failures ? Math.min(RELISTEN_BACKOFF_MS * 2 ** (failures - 1), MAX_RELISTEN_BACKOFF_MS) : 0;
    setTimeout(() => {
      if (!wanted.has(key) || listens.has(key)) return;
      listen(server, uri, failures).then(
        (honored) => {
          if (!honored) return void wanted.delete(key);
          // Listened again after a gap: whatever changed meanwhile was told to nobody.
          if (wanted.has(key)) onResourceUpdated?.(server, uri);
        },
        () => relisten(server, uri, failures + 1),
      );
    }, delay).unref();
  };

  /** What is subscribed on legacy servers, by server: subscribed again on a new connection when the old one drops. */
  const subscribed = new Map<string, Set<string>>();
  /** Per server: when its subscriptions were last restored, and how many restores in a row ended at once. */
  const restores = new Map<string, { at: number; failures: number }>();
  /** Unsubscribes so far, by server and URI: a subscribe that an unsubscribe overtook is not kept. */
  const dropsOf = new Map<string, number>();
  const keep = (server: string, uri: string, on: boolean): void => {
    if (!on) dropsOf.set(`${server}\u0000${uri}`, (dropsOf.get(`${server}\u0000${uri}`) ?? 0) + 1);
    const uris = subscribed.get(server) ?? new Set<string>();
    if (on) subscribed.set(server, uris.add(uri));
    else if (uris.delete(uri) && !uris.size) subscribed.delete(server);
  };

  /**
   * A legacy server's subscriptions live in its connection: one that drops takes them along. While someone is
   * subscribed, the server is connected again (with the re-listen's back-off), subscribed again, and each URI told
   * as updated: a change between the drop and the new subscription was told to nobody.
   */
  const resubscribe = (server: string, failures: number): void => {
    if (failures > MAX_RELISTEN_FAILURES) return void subscribed.delete(server);
    const delay = failures ? Math.min(RELISTEN_BACKOFF_MS * 2 ** (failures - 1), MAX_RELISTEN_BACKOFF_MS) : 0;
    setTimeout(() => {
      if (!subscribed.get(server)?.size) return;
      void (async () => {
        for (const uri of [...(subscribed.get(server) ?? [])]) {
          if (!subscribed.get(server)?.has(uri)) continue;
          if (await api.subscribe(server, uri, true)) onResourceUpdated?.(server, uri);
        }
        restores.set(server, { at: Date.now(), failures });
      })().catch(() => resubscribe(server, failures + 1));
    }, delay).unref();
  };
  connections.onDropped((server) => {
    if (!subscribed.get(server)?.size) return;
    // Dropped again at once after a restore: a failure, so a server that keeps dying is not reconnected in a tight loop.
    const last = restores.get(server);
    resubscribe(server, last && Date.now() - last.at < QUICK_END_MS ? last.failures + 1 : 0);
  });

  /** A listing, with the era checks every first request on a cached verdict gets. */
  const list = async <T>(
    server: string,
    what: string,
    fetch: Fetch<T>,
    retry: () => Promise<T>,
  ): Promise<{ pooled: Pooled; items: T }> => {
    const pooled = await get(server);
    let items: T;
    try {
      items = await fetch(pooled.connection.client, timeoutFor(server));
    } catch (error) {
      const mapped = new McpxError(
        'CALL_FAILED',
        `listing the ${what} of "${server}" failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
          data: { server, ...(error instanceof ProtocolError ? { code: error.code } : {}) },
        },
      );
      return { pooled, items: await onFailure(server, pooled, mapped, retry, true) };
    }
    await onSuccess(server, pooled);
    return { pooled, items };
  };

  /** A listing whose retry is the same listing again. */
  const items = async <T>(server: string, what: string, fetch: Fetch<T>): Promise<T> =>
    (await list(server, what, fetch, () => items(server, what, fetch))).items;

  const listTools = async (server: string, listOptions: { refresh?: boolean } = {}): Promise<Tool[]> => {
    const { pooled, items } = await list(
      server,
      'tools',
      async (client, timeout) =>
        declares(client, 'tools')
          ? (await client.listTools(undefined, { timeout, ...(listOptions.refresh ? { cacheMode: 'refresh' as const } : {}) }))
              .tools
          : [],
      () => listTools(server, listOptions),
    );
    // What each tool's calls must carry as headers, known from now on.
    pooled.tools = new Map(items.map((tool) => [tool.name, scanHeaderDeclarations(tool.inputSchema)]));
    return items;
  };

  const api: Listings = {
    listTools,
    listPrompts: (server) =>
      items(server, 'prompts', async (client, timeout) =>
        declares(client, 'prompts') ? (await client.listPrompts(undefined, { timeout })).prompts : [],
      ),
    listResources: (server) =>
      items(server, 'resources', async (client, timeout) =>
        declares(client, 'resources') ? (await client.listResources(undefined, { timeout })).resources : [],
      ),
    listResourceTemplates: (server) =>
      items(server, 'resource templates', async (client, timeout) =>
        declares(client, 'resources') ? (await client.listResourceTemplates(undefined, { timeout })).resourceTemplates : [],
      ),
    complete: (server, params) =>
      items(server, 'completions', async (client, timeout) => {
        const result = await client.request({ method: 'completion/complete', params } as never, { timeout });
        return result as Record<string, unknown>;
      }),
    subscribe: async (server, uri, on) => {
      if (!on) keep(server, uri, false);
      const drops = dropsOf.get(`${server}\u0000${uri}`);
      const { connection } = await get(server);
      if (!connection.client.getServerCapabilities()?.resources?.subscribe) return false;
      if (connection.era === 'modern') {
        keep(server, uri, false);
        const key = `${server}\u0000${uri}`;
        if (on) wanted.add(key);
        else wanted.delete(key);
        const open = listens.get(key);
        // A listen of an earlier connection (since replaced) is dead: listen again on this one.
        if (on && open?.client === connection.client) return true;
        listens.delete(key);
        await open?.subscription.close();
        if (!on) return true;
        const honored = await listen(server, uri, 0).catch((error: unknown) => {
          wanted.delete(key);
          throw error;
        });
        if (!honored) wanted.delete(key);
        return honored;
      }
      await items(server, 'resource subscriptions', async (client, timeout) => {
        await client.request({ method: on ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri } } as never, {
          timeout,
        });
        return true;
      });
      if (on && dropsOf.get(`${server}\u0000${uri}`) === drops) keep(server, uri, true);
      return true;
    },
  };
  return api;
}
