/**
 * Resource subscriptions `mcpx serve` holds upstream: one upstream connection serves every client, so a URI is
 * subscribed for its first watcher and unsubscribed after its last, and each update goes to every watcher.
 */

export interface ResourceWatchers {
  /** What the upstreams' `notifications/resources/updated` is passed to. */
  updated(server: string, uri: string): void;
  /** Calls `onUpdate` whenever the resource changes; resolves with the unwatch once the upstream is subscribed. */
  watch(server: string, uri: string, onUpdate: () => void): Promise<() => Promise<void>>;
}

/** `subscribe` is read only when a first watcher comes, so it may name connections opened after this. */
export function createResourceWatchers(
  subscribe: (server: string, uri: string, on: boolean) => Promise<unknown>,
): ResourceWatchers {
  /** The clients watching each subscribed resource, by server and URI. */
  const watchers = new Map<string, Set<() => void>>();
  return {
    updated(server, uri) {
      for (const onUpdate of watchers.get(`${server}\u0000${uri}`) ?? []) onUpdate();
    },
    async watch(server, uri, onUpdate) {
      const key = `${server}\u0000${uri}`;
      let set = watchers.get(key);
      const first = !set;
      if (!set) watchers.set(key, (set = new Set()));
      set.add(onUpdate);
      const unwatch = async (): Promise<void> => {
        if (!set.delete(onUpdate) || set.size) return;
        watchers.delete(key);
        await subscribe(server, uri, false);
      };
      if (first) {
        try {
          await subscribe(server, uri, true);
        } catch (error) {
          set.delete(onUpdate);
          if (!set.size) watchers.delete(key);
          throw error;
        }
      }
      return unwatch;
    },
  };
}
