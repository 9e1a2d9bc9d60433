/**
 * A modern client's resource subscriptions: 2026-07-28 has no `resources/subscribe`, a client opens a
 * `subscriptions/listen` stream naming the URIs instead. The SDK's serving entry answers the listen itself (the
 * acknowledgement, the stream), so mcpx watches the URIs upstream for as long as the stream is open and puts the
 * upstream's `notifications/resources/updated` on it.
 */
import { SUBSCRIPTION_ID_META_KEY, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import type { ServeCore } from './core.js';
import { isObject } from './json-values.js';

/** The server that listed a URI, else the only one served; undefined when no server is known to have it. */
export async function ownerOf(core: ServeCore, uri: string): Promise<string | undefined> {
  const catalog = await core.catalog();
  return catalog.serverOfUri.get(uri) ?? (core.serverNames().length === 1 ? core.serverNames()[0] : undefined);
}

export interface ResourceWatches {
  /** Watches the URIs (those a server serves) until the release; resolves once the upstreams are subscribed. */
  hold(uris: readonly string[]): Promise<() => Promise<void>>;
}

/**
 * URIs watched upstream once each, however many listeners hold them, so `onUpdate` is called once per change: the
 * listeners' filters decide who gets it.
 */
export function createResourceWatches(core: ServeCore, onUpdate: (uri: string) => void): ResourceWatches {
  const held = new Map<string, { count: number; unwatch: Promise<(() => Promise<void>) | undefined> }>();
  const watch = async (uri: string): Promise<(() => Promise<void>) | undefined> => {
    const owner = await ownerOf(core, uri).catch(() => undefined);
    if (!owner) return undefined;
    // An upstream that refuses leaves the URI without updates; the listen itself stands.
    return core.watchResource(owner, uri, () => onUpdate(uri)).catch(() => undefined);
  };
  return {
    async hold(uris) {
      const mine = [...new Set(uris)];
      for (const uri of mine) {
        let entry = held.get(uri);
        if (!entry) held.set(uri, (entry = { count: 0, unwatch: watch(uri) }));
        entry.count += 1;
      }
      await Promise.all(mine.map((uri) => held.get(uri)?.unwatch));
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        await Promise.all(
          mine.map(async (uri) => {
            const entry = held.get(uri);
            if (!entry || --entry.count > 0) return;
            held.delete(uri);
            await (await entry.unwatch)?.().catch(() => undefined);
          }),
        );
      };
    },
  };
}

/** The URIs a `subscriptions/listen` request names (none for any other message). */
export function listenedUris(message: unknown): string[] {
  if (!isObject(message) || message.method !== 'subscriptions/listen' || !isObject(message.params)) return [];
  const filter = message.params.notifications;
  const uris = isObject(filter) ? filter.resourceSubscriptions : undefined;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [];
}

type Id = string | number;

/**
 * Over stdio: the acknowledgement serveStdio's listen router sends names the URIs it honoured and the subscription
 * id; they are watched before it goes out (so no change after it is missed), each update is sent stamped with that
 * id, and the watch ends with the subscription (the client's `notifications/cancelled`, a graceful close, the end).
 */
export function relayStdioListens(transport: Transport, core: ServeCore): void {
  const subscriptions = new Map<Id, string[]>();
  const releases = new Map<Id, Promise<() => Promise<void>>>();
  const send = transport.send.bind(transport);
  const watches = createResourceWatches(core, (uri) => {
    for (const [id, uris] of subscriptions)
      if (uris.includes(uri))
        void send({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri, _meta: { [SUBSCRIPTION_ID_META_KEY]: id } },
        } as JSONRPCMessage).catch(() => undefined);
  });
  const end = (id: Id): void => {
    subscriptions.delete(id);
    const release = releases.get(id);
    releases.delete(id);
    void release?.then((r) => r()).catch(() => undefined);
  };
  transport.send = async (message, options) => {
    const m = message as Record<string, unknown>;
    if (m.method === 'notifications/subscriptions/acknowledged' && isObject(m.params)) {
      const id = (isObject(m.params._meta) ? m.params._meta[SUBSCRIPTION_ID_META_KEY] : undefined) as Id | undefined;
      const uris = listenedUris({ method: 'subscriptions/listen', params: m.params });
      if (id !== undefined && uris.length) {
        const release = watches.hold(uris);
        releases.set(id, release);
        await release.catch(() => undefined);
        if (releases.get(id) === release) subscriptions.set(id, uris);
      }
    } else if ('id' in m && ('result' in m || 'error' in m) && releases.has(m.id as Id)) end(m.id as Id);
    return send(message, options);
  };
  // serveStdio sets its handlers after this: wrap whatever it sets.
  let onmessage: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => onmessage,
    set: (handler: Transport['onmessage']) => {
      onmessage =
        handler &&
        ((message, extra) => {
          const m = message as Record<string, unknown>;
          if (m.method === 'notifications/cancelled' && isObject(m.params) && releases.has(m.params.requestId as Id))
            end(m.params.requestId as Id);
          handler(message, extra);
        });
    },
  });
  const endAll = (): void => {
    for (const id of [...releases.keys()]) end(id);
  };
  let onclose: Transport['onclose'] = endAll;
  Object.defineProperty(transport, 'onclose', {
    configurable: true,
    get: () => onclose,
    set: (handler: Transport['onclose']) => {
      onclose = () => {
        endAll();
        handler?.();
      };
    },
  });
}
