import type { Clock } from './types.js';

// setTimeout fires at once for delays past 2^31-1 ms (about 24.8 days): longer deadlines are chained.
const MAX_DELAY_MS = 2_147_483_647;

/**
 * Wall time. Timers are unref'd so a question nobody awaits never keeps a process alive; an awaited deadline
 * (`keepAlive`) does, or a process whose only work is awaiting an answer would end with its await unsettled.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, delayMs, options) {
    const handle: { timeout?: ReturnType<typeof setTimeout> } = {};
    const arm = (remaining: number): void => {
      handle.timeout = setTimeout(
        () => (remaining > MAX_DELAY_MS ? arm(remaining - MAX_DELAY_MS) : callback()),
        Math.min(Math.max(0, remaining), MAX_DELAY_MS),
      );
      if (!options?.keepAlive) handle.timeout.unref?.();
    };
    arm(delayMs);
    return handle;
  },
  clearTimer(handle) {
    clearTimeout((handle as { timeout?: ReturnType<typeof setTimeout> }).timeout);
  },
};

/** A clock that moves only when told: `advance(ms)` fires due timers in deadline order. For tests. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(now: number): void;
}

export function createManualClock(start = 1_800_000_000_000): ManualClock {
  let now = start;
  let seq = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const fireDue = (): void => {
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of timers) if (entry[1].at <= now && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) return;
      timers.delete(next[0]);
      next[1].callback();
    }
  };
  return {
    now: () => now,
    setTimer(callback, delayMs) {
      const handle = ++seq;
      timers.set(handle, { at: now + Math.max(0, delayMs), callback });
      if (delayMs <= 0) queueMicrotask(fireDue);
      return handle;
    },
    clearTimer(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      now += ms;
      fireDue();
    },
    set(value) {
      now = value;
      fireDue();
    },
  };
}
