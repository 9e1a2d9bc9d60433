/**
 * A question opened here is watched from before its write until the wait that follows takes the watch over: any
 * answer (this process's claim, or another's through the store's wake channel) lands in the watch, so that wait
 * needs no store read. Every store's watch sees whatever is committed after it starts (SQLite's data_version poll,
 * Redis pub/sub, Postgres LISTEN, each re-reading after a reconnect), and this watch starts before the question
 * exists, so nothing can be answered unseen. A watch not taken within a moment is dropped; its wait reads as before.
 */
import type { BrokerStore, StoredAnswer } from './types.js';

/** What a watch saw: the answer, or a hint to re-read (the store could not say which answer). */
export interface SeenSinceOpen {
  answer?: StoredAnswer;
  hinted: boolean;
}

interface Slot extends SeenSinceOpen {
  unwatch(): void;
  timer?: ReturnType<typeof setTimeout>;
}

export interface OpenWatches {
  /** Starts watching `id` before its write; `keep()` once written, `drop()` when not. */
  begin(id: string): { keep(): void; drop(): void };
  /** Hands over what was seen and stops watching; the caller's own watch must already be live. */
  take(id: string): SeenSinceOpen | undefined;
  forget(id: string): void;
  close(): void;
}

export function createOpenWatches(store: BrokerStore, options: { max: number; graceMs: number }): OpenWatches {
  const slots = new Map<string, Slot>();
  const release = (id: string): Slot | undefined => {
    const slot = slots.get(id);
    if (!slot) return undefined;
    slots.delete(id);
    if (slot.timer) clearTimeout(slot.timer);
    slot.unwatch();
    return slot;
  };
  return {
    begin(id) {
      const slot: Slot = { hinted: false, unwatch: () => undefined };
      let live = true;
      const stop = (): void => {
        if (!live) return;
        live = false;
        unwatch();
      };
      const unwatch = store.watch(id, (answer) => {
        if (!answer) return void (slot.hinted = true);
        slot.answer ??= answer;
        stop(); // answered: nothing more to see (and a polling store stops polling for it)
      });
      slot.unwatch = stop;
      return {
        keep() {
          if (slots.size >= options.max) release(slots.keys().next().value as string);
          slot.timer = setTimeout(() => slots.get(id) === slot && release(id), options.graceMs);
          slot.timer.unref?.();
          slots.set(id, slot);
        },
        drop: () => slot.unwatch(),
      };
    },
    take(id) {
      const slot = release(id);
      return slot && { hinted: slot.hinted, ...(slot.answer ? { answer: slot.answer } : {}) };
    },
    forget(id) {
      release(id);
    },
    close() {
      for (const id of [...slots.keys()]) release(id);
    },
  };
}
