/**
 * How a sink is sent to, as values: its kind, where its webhook secret is kept, and the retry schedule (a
 * webhook is tried again after each delay, then given up on: at most four tries over about 15 s plus timeouts).
 */
import type { NotifySink } from '../config/index.js';
import type { SecretRef } from '../types.js';

/** Waits before the second, third and fourth try of a webhook; later tries wait as long as the last. */
export const RETRY_DELAYS_MS: readonly number[] = [1_000, 3_000, 10_000];
export const DEFAULT_RETRIES = 3;

/** The waits before each retry of a webhook with this many retries. */
export function retryDelays(retries: number = DEFAULT_RETRIES): number[] {
  return Array.from({ length: retries }, (_, i) => RETRY_DELAYS_MS[Math.min(i, RETRY_DELAYS_MS.length - 1)]!);
}
/** How long one webhook try may take before it counts as failed (a sink's `timeoutMs` changes it). */
export const DEFAULT_ATTEMPT_MS = 5_000;

export function sinkKind(sink: NotifySink): 'webhook' | 'command' | 'desktop' {
  return 'webhook' in sink ? 'webhook' : 'command' in sink ? 'command' : 'desktop';
}

/** Where a webhook's signing key is kept in the secret store (asked once, at `mcpx notify test` or first send). */
export function notifySecretRef(sink: NotifySink): SecretRef {
  return { service: 'notify', account: `${sink.name}.secret` };
}
