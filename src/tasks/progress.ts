/**
 * The progress of the calls a runner drives, as events for whoever follows them (the daemon's event stream):
 * kept in memory only, never in the audit log, since a server may report progress many times a second.
 */
import type { CallNotifications, CallProgress } from '../client/index.js';
import type { TaskRecord } from './types.js';

/** One `notifications/progress` of a call the runner drives; `message` is server text. */
export interface ProgressEvent extends CallProgress {
  kind: 'call.progress';
  at: number;
  pid: number;
  task: string;
  /** The call's `cal-` id. */
  trace: string;
  session: string;
  server: string;
  tool: string;
  /** The token the caller gave with the call (it knows no task id until the call's first stop). */
  token?: string;
}

export interface ProgressHub {
  /** What the runner's `onProgress` is given. */
  publish(task: TaskRecord, progress: CallProgress, token: string | undefined): void;
  subscribe(listener: (event: ProgressEvent) => void): () => void;
}

export function createProgressHub(options: { pid: number; clock?: () => number }): ProgressHub {
  const now = options.clock ?? Date.now;
  const listeners = new Set<(event: ProgressEvent) => void>();
  return {
    publish(task, progress, token) {
      if (!listeners.size) return;
      const event: ProgressEvent = {
        kind: 'call.progress',
        at: now(),
        pid: options.pid,
        task: task.id,
        trace: task.callId,
        session: task.session,
        server: task.server,
        tool: task.tool,
        ...(token !== undefined ? { token } : {}),
        ...progress,
      };
      for (const listener of listeners) listener(event);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * A first round's notification options: the caller's own (mcpx serve's client) and, when the caller named its
 * call with a progress token, the runner's listener beside them.
 */
export function withProgress(
  input: { notifications?: CallNotifications; progressToken?: string },
  task: TaskRecord,
  hear: ((task: TaskRecord, progress: CallProgress, token: string) => void) | undefined,
): { notifications?: CallNotifications } {
  const { notifications, progressToken } = input;
  const heard = hear && progressToken !== undefined ? (progress: CallProgress) => hear(task, progress, progressToken) : undefined;
  const both = alongside(notifications, heard);
  return both ? { notifications: both } : {};
}

/**
 * The caller's notifications with a listener of the runner's beside them. Read through, never copied: the caller's
 * receiver may change between rounds (mcpx serve points a resumed call at the client's retry).
 */
export function alongside(
  caller: CallNotifications | undefined,
  heard: ((progress: CallProgress) => void) | undefined,
): CallNotifications | undefined {
  if (!heard) return caller;
  return {
    onProgress: (progress) => {
      caller?.onProgress?.(progress);
      heard(progress);
    },
    get logLevel() {
      return caller?.logLevel;
    },
    get onLog() {
      return caller?.onLog;
    },
  } as CallNotifications;
}
