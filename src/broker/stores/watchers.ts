/** Who in this process waits on which question's answer; each store wakes them from its own signal. */
import type { BrokerEvent, StoredAnswer } from '../types.js';

/** Called with the answer, or with nothing: the answer may have landed, re-read it. */
export type Watcher = (answer?: StoredAnswer) => void;

/** Who in this process hears of every answer claimed through one store object (`BrokerStore.onClaimed`). */
export class ClaimListeners {
  private readonly listeners = new Set<(event: BrokerEvent) => void>();

  add(listener: (event: BrokerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  tell(event: BrokerEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }
}

export class Watchers {
  private readonly byId = new Map<string, Set<Watcher>>();

  /** Adds a waiter; the returned function removes it. */
  add(id: string, watcher: Watcher): () => void {
    let set = this.byId.get(id);
    if (!set) this.byId.set(id, (set = new Set()));
    set.add(watcher);
    return () => {
      set.delete(watcher);
      if (set.size === 0) this.byId.delete(id);
    };
  }

  /** The waiters on one question, as they are now (a waiter may remove itself while woken). */
  of(id: string): Watcher[] {
    const set = this.byId.get(id);
    return set ? [...set] : [];
  }

  wake(id: string, answer?: StoredAnswer): void {
    for (const watcher of this.of(id)) watcher(answer);
  }

  /** The questions anyone waits on. */
  ids(): string[] {
    return [...this.byId.keys()];
  }

  get size(): number {
    return this.byId.size;
  }

  clear(): void {
    this.byId.clear();
  }
}
