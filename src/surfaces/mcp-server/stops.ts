/**
 * The stops of the calls `mcpx serve` drives (a round of questions, or the end), numbered per task so a waiter
 * knows what is new, with the questions opened here not yet put to a client and each asking call's notification
 * route. A finished call's last stop stays readable a while (mcpx_call_result), swept, not a timer per call.
 */
import type { ElicitRequest } from '../../broker/index.js';
import { McpxError } from '../../errors.js';
import type { TaskStep } from '../../tasks/types.js';
import type { CallRoute } from './passthrough.js';

/** A stop of a call, numbered per task. */
export interface Stop {
  seq: number;
  step: TaskStep;
}

/** Opened questions kept for their first stop; a bound, in case a stop never comes. */
const MAX_OPENED = 1000;
/** How long a finished call that asked keeps its last stop here, for mcpx_call_result. */
const FINISHED_KEPT_MS = 30 * 60_000;

export interface Stops {
  /** The runner's onStop: records the stop and wakes its waiters. */
  record(step: TaskStep): void;
  latest(taskId: string): Stop | undefined;
  /** The first stop of the task after `afterSeq`; rejects with `lost()` once that is set and nothing new came. */
  next(taskId: string, afterSeq: number, signal?: AbortSignal): Promise<Stop>;
  /** The stop a call's start reports: a call that finished without asking is forgotten (nobody will ask again). */
  started(step: TaskStep, route: CallRoute): Stop;
  /** A question opened here, kept for the first stop that asks it. */
  opened(request: ElicitRequest): void;
  takeOpened(id: string): ElicitRequest | undefined;
  route(taskId: string): CallRoute | undefined;
  /** The lease was lost: calls driven elsewhere now have their stops in the store; every waiter here is told. */
  lost(): void;
  close(): void;
}

export function createStops(lost: () => McpxError | undefined): Stops {
  const stops = new Map<string, Stop>();
  const waiters = new Map<string, Set<() => void>>();
  /** Questions opened here and not yet put to a client, by id (a policy's answer or the call's end drops them). */
  const opened = new Map<string, ElicitRequest>();
  /** The notification route of each call that asked and goes on, by task. */
  const routes = new Map<string, CallRoute>();
  /** When each finished call's last stop goes (insertion order is expiry order). */
  const keptUntil = new Map<string, number>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, until] of keptUntil) {
      if (until > now) break;
      keptUntil.delete(id);
      stops.delete(id);
    }
  }, 60_000).unref();

  const next = (taskId: string, afterSeq: number, signal?: AbortSignal): Promise<Stop> =>
    new Promise<Stop>((resolve, reject) => {
      const check = (): boolean => {
        const stop = stops.get(taskId);
        if ((!stop || stop.seq <= afterSeq) && !lost()) return false;
        done();
        if (stop && stop.seq > afterSeq) resolve(stop);
        else reject(lost());
        return true;
      };
      const abort = (): void => {
        done();
        reject(signal?.reason ?? new McpxError('CALL_FAILED', 'the request was cancelled'));
      };
      const done = (): void => {
        waiters.get(taskId)?.delete(wake);
        signal?.removeEventListener('abort', abort);
      };
      const wake = (): void => void check();
      if (check()) return;
      let set = waiters.get(taskId);
      if (!set) waiters.set(taskId, (set = new Set()));
      set.add(wake);
      signal?.addEventListener('abort', abort, { once: true });
    });

  return {
    record(step) {
      const id = step.task.id;
      const finished = step.status !== 'input-required';
      if (finished) routes.delete(id);
      for (const [question, request] of opened)
        if (request.task === id && !step.task.waitingOn.includes(question)) opened.delete(question);
      stops.set(id, { seq: (stops.get(id)?.seq ?? 0) + 1, step });
      for (const wake of waiters.get(id) ?? []) wake();
      // A finished call's last stop stays readable for a while (mcpx_call_result), then goes.
      if (finished) keptUntil.set(id, Date.now() + FINISHED_KEPT_MS);
    },
    latest: (taskId) => stops.get(taskId),
    next,
    started(step, route) {
      const stop = stops.get(step.task.id) ?? { seq: 1, step };
      if (stop.step.status === 'input-required') routes.set(step.task.id, route);
      else if (stop.seq === 1) {
        // Finished without asking: its id went to nobody, so nobody will ask for it again; this request has it.
        stops.delete(step.task.id);
        keptUntil.delete(step.task.id);
      }
      return stop;
    },
    opened(request) {
      if (opened.size >= MAX_OPENED) opened.delete(opened.keys().next().value as string);
      opened.set(request.id, request);
    },
    takeOpened(id) {
      const request = opened.get(id);
      opened.delete(id);
      return request;
    },
    route: (taskId) => routes.get(taskId),
    lost() {
      // Its calls are driven elsewhere now: their stops come from the store (held-elsewhere.ts); a waiter here is told.
      for (const [id, stop] of stops) if (stop.step.status === 'input-required') stops.delete(id);
      for (const wake of [...waiters.values()].flatMap((set) => [...set])) wake();
    },
    close: () => clearInterval(sweep),
  };
}
