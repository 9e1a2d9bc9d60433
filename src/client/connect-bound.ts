/**
 * One bound on connecting (the era probe and `initialize` together), and a way to stop it early: a server that never
 * answers fails within the bound, and closing mcpx mid-connect ends the attempt (its process) at once.
 */
import { SdkError } from '@modelcontextprotocol/client';

/** Connecting to a server whose config sets no `timeoutMs`: seconds, not the SDK's minute per request. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

export class ConnectBound {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly detach: () => void;

  constructor(
    readonly ms: number,
    signal?: AbortSignal,
  ) {
    this.timer = setTimeout(
      () =>
        this.controller.abort(
          new Error(
            `no answer within ${ms} ms (era probe and initialize); raise its "timeoutMs" in the config if it starts slowly`,
          ),
        ),
      ms,
    );
    const onAbort = (): void => this.controller.abort(signal!.reason ?? new Error('connecting was stopped'));
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.detach = () => signal?.removeEventListener('abort', onAbort);
  }

  get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  /** Runs one attempt; when the bound runs out (or mcpx closes), `close` ends it and the attempt fails with why. */
  async run<T>(attempt: Promise<T>, close: () => Promise<unknown>): Promise<T> {
    const { signal } = this.controller;
    if (signal.aborted) {
      await close().catch(() => undefined);
      throw signal.reason;
    }
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      onAbort = () => {
        void close().catch(() => undefined);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([attempt, stopped]);
    } finally {
      signal.removeEventListener('abort', onAbort!);
      attempt.catch(() => undefined);
    }
  }

  done(): void {
    clearTimeout(this.timer);
    this.detach();
  }
}

/** An in-place probe a legacy server closed on (it exits on `server/discover`): worth one more attempt, legacy. */
export function isProbeClosed(error: unknown): boolean {
  return (
    error instanceof SdkError &&
    error.code === 'ERA_NEGOTIATION_FAILED' &&
    /closed during the server\/discover probe|probed in place/.test(error.message)
  );
}
