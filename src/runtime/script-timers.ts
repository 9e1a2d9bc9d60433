/** The script's timers: each with its due time, and one host timer that waits for the earliest. */

const MAX_TIMER_MS = 2_147_483_647;

export class ScriptTimers {
  /** The script's timers by id, each with its due time. */
  private readonly due = new Map<number, number>();
  private hostTimer: NodeJS.Timeout | undefined;
  private hostTimerDue = Infinity;

  constructor(
    private readonly maxTimers: number,
    /** Fires one timer in the script (a slice of its own). */
    private readonly fire: (id: number) => void,
    /** The run has ended: nothing more fires. */
    private readonly finished: () => boolean,
  ) {}

  get size(): number {
    return this.due.size;
  }

  /** `from`: the slice's start. */
  set(id: number, ms: number, from: number): void {
    if (this.due.size >= this.maxTimers) {
      throw new RangeError(`setTimeout: ${this.maxTimers} timers are already pending (the limit of a script)`);
    }
    // Due from the slice's start (the script's clock stands still within a slice, as in a JS engine's task), so
    // timers set in one slice fire in the order of their delays however long the host was descheduled between them.
    this.due.set(id, from + Math.min(ms, MAX_TIMER_MS));
    this.arm();
  }

  clear(id: number): void {
    this.due.delete(id);
  }

  /** The run is over: no timer fires any more. */
  dispose(): void {
    clearTimeout(this.hostTimer);
    this.hostTimer = undefined;
    this.due.clear();
  }

  private arm(): void {
    let earliest = Infinity;
    for (const due of this.due.values()) earliest = Math.min(earliest, due);
    if (earliest === this.hostTimerDue) return;
    clearTimeout(this.hostTimer);
    this.hostTimer = undefined;
    this.hostTimerDue = earliest;
    if (earliest === Infinity) return;
    const delay = Math.min(Math.max(0, earliest - performance.now()), MAX_TIMER_MS);
    this.hostTimer = setTimeout(() => this.fireDue(), delay);
  }

  /** Fires every due timer in order of due time (then of creation), each in its own slice. */
  private fireDue(): void {
    this.hostTimer = undefined;
    this.hostTimerDue = Infinity;
    const now = performance.now();
    const due = [...this.due].filter(([, at]) => at <= now).sort(([a, atA], [b, atB]) => atA - atB || a - b);
    for (const [id] of due) {
      if (this.finished()) return;
      if (!this.due.delete(id)) continue; // cleared by an earlier callback
      this.fire(id);
    }
    if (!this.finished()) this.arm();
  }
}
