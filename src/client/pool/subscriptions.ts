/**
 * Resource subscriptions, kept across gaps: a modern server's `subscriptions/listen` stream is listened to again
 * when it ends, a legacy server's `resources/subscribe` is sent again on a new connection when the old one drops.
 */
import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import type { Connections } from './connections.js';

/** A request that never asks, with the era checks every first request gets (the listings' own). */
export type PlainRequest = <T>(
  server: string,
  what: string,
  fetch: (client: Client, timeout: number) => Promise<T>,
) => Promise<T>;

/** A listen the server ends sooner than this after it opened counts as a failure (see relisten). */
const QUICK_END_MS = 1_000;
const RELISTEN_BACKOFF_MS = 250;
const MAX_RELISTEN_BACKOFF_MS = 30_000;
/** Then the subscription is given up (about two minutes of back-off); the next subscriber listens afresh. */
const MAX_RELISTEN_FAILURES = 10;

const backoff = (failures: number): number =>
  failures ? Math.min(RELISTEN_BACKOFF_MS * 2 ** (failures - 1), MAX_RELISTEN_BACKOFF_MS) : 0;

const keyOf = (server: string, uri: string): string => `${server}\u0000${uri}`;

/**
 * Subscribes to (or unsubscribes from) a resource where the server takes it; false where it does not.
 * `onResourceUpdated`: told for each subscribed URI once its subscription is back after a gap: a change during the
 * gap was told to nobody, so the resource may have changed.
 */
export function createSubscriptions(
  connections: Connections,
  request: PlainRequest,
  onResourceUpdated?: (server: string, uri: string) => void,
): (server: string, uri: string, on: boolean) => Promise<boolean> {
  const listens = modernListens(connections, onResourceUpdated);
  const legacy = legacySubscriptions(connections, (server, uri) => subscribe(server, uri, true), onResourceUpdated);

  async function subscribe(server: string, uri: string, on: boolean): Promise<boolean> {
    if (!on) legacy.keep(server, uri, false);
    const drops = legacy.drops(server, uri);
    const { connection } = await connections.get(server);
    if (!connection.client.getServerCapabilities()?.resources?.subscribe) return false;
    if (connection.era === 'modern') {
      legacy.keep(server, uri, false);
      return listens.subscribe(server, uri, on, connection.client);
    }
    await request(server, 'resource subscriptions', async (client, timeout) => {
      await client.request({ method: on ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri } } as never, {
        timeout,
      });
      return true;
    });
    if (on && legacy.drops(server, uri) === drops) legacy.keep(server, uri, true);
    return true;
  }
  return subscribe;
}

/** A modern server's subscriptions: one `subscriptions/listen` stream per URI, listened to again when it ends. */
function modernListens(connections: Connections, onResourceUpdated?: (server: string, uri: string) => void) {
  const { get, timeoutFor } = connections;
  /** The open streams, by server and URI. */
  const listens = new Map<string, { client: Client; subscription: McpSubscription }>();
  /** What is subscribed (server and URI): listened to again when the server ends the stream. */
  const wanted = new Set<string>();

  /**
   * One listen stream for the URI (its filter is fixed, so one per URI lets each be closed alone); false when the
   * server leaves the URI out. `failures`: listens in a row that failed or ended at once, for the back-off.
   */
  const listen = async (server: string, uri: string, failures: number): Promise<boolean> => {
    const key = keyOf(server, uri);
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
    const key = keyOf(server, uri);
    if (failures > MAX_RELISTEN_FAILURES) return void wanted.delete(key);
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
    }, backoff(failures)).unref();
  };

  /** Listens (or stops) on the server's current connection, `client`. */
  const subscribe = async (server: string, uri: string, on: boolean, client: Client): Promise<boolean> => {
    const key = keyOf(server, uri);
    if (on) wanted.add(key);
    else wanted.delete(key);
    const open = listens.get(key);
    // A listen of an earlier connection (since replaced) is dead: listen again on this one.
    if (on && open?.client === client) return true;
    listens.delete(key);
    await open?.subscription.close();
    if (!on) return true;
    const honored = await listen(server, uri, 0).catch((error: unknown) => {
      wanted.delete(key);
      throw error;
    });
    if (!honored) wanted.delete(key);
    return honored;
  };
  return { subscribe };
}

/**
 * A legacy server's subscriptions live in its connection: one that drops takes them along. While someone is
 * subscribed, the server is connected again (with the re-listen's back-off), subscribed again (`subscribeAgain`),
 * and each URI told as updated: a change between the drop and the new subscription was told to nobody.
 */
function legacySubscriptions(
  connections: Connections,
  subscribeAgain: (server: string, uri: string) => Promise<boolean>,
  onResourceUpdated?: (server: string, uri: string) => void,
) {
  /** What is subscribed, by server. */
  const subscribed = new Map<string, Set<string>>();
  /** Per server: when its subscriptions were last restored, and how many restores in a row ended at once. */
  const restores = new Map<string, { at: number; failures: number }>();
  /** Unsubscribes so far, by server and URI: a subscribe that an unsubscribe overtook is not kept. */
  const dropsOf = new Map<string, number>();

  const keep = (server: string, uri: string, on: boolean): void => {
    if (!on) dropsOf.set(keyOf(server, uri), (dropsOf.get(keyOf(server, uri)) ?? 0) + 1);
    const uris = subscribed.get(server) ?? new Set<string>();
    if (on) subscribed.set(server, uris.add(uri));
    else if (uris.delete(uri) && !uris.size) subscribed.delete(server);
  };

  const resubscribe = (server: string, failures: number): void => {
    if (failures > MAX_RELISTEN_FAILURES) return void subscribed.delete(server);
    setTimeout(() => {
      if (!subscribed.get(server)?.size) return;
      void (async () => {
        for (const uri of [...(subscribed.get(server) ?? [])]) {
          if (!subscribed.get(server)?.has(uri)) continue;
          if (await subscribeAgain(server, uri)) onResourceUpdated?.(server, uri);
        }
        restores.set(server, { at: Date.now(), failures });
      })().catch(() => resubscribe(server, failures + 1));
    }, backoff(failures)).unref();
  };
  connections.onDropped((server) => {
    if (!subscribed.get(server)?.size) return;
    // Dropped again at once after a restore: a failure, so a server that keeps dying is not reconnected in a tight loop.
    const last = restores.get(server);
    resubscribe(server, last && Date.now() - last.at < QUICK_END_MS ? last.failures + 1 : 0);
  });

  return { keep, drops: (server: string, uri: string) => dropsOf.get(keyOf(server, uri)) };
}
