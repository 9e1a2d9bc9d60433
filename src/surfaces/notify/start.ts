/**
 * Notifications in a long-lived process (the daemon, `mcpx serve`, an inline run): subscribes to the broker's
 * events and sends each matching sink what happened to a question, off the call's path. Every outcome is audited.
 * A question left to wait is announced at once; one this process may answer itself only after a grace.
 */
import type { Broker, BrokerEvent, ElicitRequest, StoredAnswer } from '../../broker/index.js';
import type { NotifySink } from '../../config/index.js';
import { notifySecretRef, payloadOf, sinkKind, sinksFor, type NotifyEvent, type NotifyPayload } from '../../notify/index.js';
import type { Policy } from '../../policy/index.js';
import type { SecretStore } from '../../secrets/index.js';
import { runCommand, sendWebhook, showDesktop, type Outcome } from './senders.js';

/** What the sinks are now: read again by the caller when its config changes. */
export interface NotifySetup {
  sinks: readonly NotifySink[];
  policy: Policy;
}

export interface NotificationsOptions {
  broker: Broker;
  setup: () => NotifySetup;
  secrets: () => Promise<SecretStore>;
  /** The web inbox's address, where one is reachable from here. */
  link?: () => string | undefined;
  platform?: NodeJS.Platform;
  path?: string | undefined;
  /**
   * A question this process may answer itself (a policy rule, a script's onElicit, a person at its terminal) is
   * announced as opened only if still unanswered this long after opening. One left to wait is announced at once.
   */
  graceMs?: number;
  retryDelaysMs?: readonly number[];
  now?: () => number;
}

export interface Notifications {
  /** Sends one event for a question through the sinks that match it, and audits each outcome. */
  deliver(
    event: NotifyEvent,
    request: ElicitRequest,
    answer?: StoredAnswer,
  ): Promise<Array<{ sink: NotifySink; outcome: Outcome }>>;
  /**
   * Sends what waits for its grace now, lets running sends finish for at most `flushMs` (retrying no more), then
   * cuts the rest short; every send's outcome is in the audit log when it returns.
   */
  stop(flushMs?: number): Promise<void>;
}

const KIND_OF: Record<Outcome['kind'], 'notify.sent' | 'notify.failed' | 'notify.skipped'> = {
  sent: 'notify.sent',
  failed: 'notify.failed',
  skipped: 'notify.skipped',
};

export function startNotifications(options: NotificationsOptions): Notifications {
  const { broker } = options;
  const now = options.now ?? Date.now;
  const graceMs = options.graceMs ?? 200;
  const stopping = new AbortController();
  // Aborted once stop's flush time is up: sends still running end as failed, and that is recorded.
  const cutting = new AbortController();
  const running = new Set<Promise<unknown>>();
  const inGrace = new Map<string, { timer: ReturnType<typeof setTimeout>; fire: () => void }>();
  // The broker tells its open hooks which questions nobody in this process will answer (the daemon's, serve's
  // without a client that can): those need a person whoever answers, however soon, so they skip the grace.
  const leftToWait = new Set<string>();
  const unhook = broker.onOpen((request, opening) => {
    if (opening.waits) leftToWait.add(request.id);
  });

  const pause = (ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      if (stopping.signal.aborted) return resolve(false);
      const timer = setTimeout(() => resolve(true), ms);
      timer.unref();
      stopping.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(false)), { once: true });
    });

  const send = async (sink: NotifySink, payload: NotifyPayload): Promise<Outcome> => {
    if ('webhook' in sink) {
      let secret: string | undefined;
      if (sink.secret) {
        secret = await (await options.secrets()).get(notifySecretRef(sink).service, notifySecretRef(sink).account);
        // Never unsigned when a key is configured: the receiver would have to accept unsigned posts.
        if (secret === undefined)
          return {
            kind: 'failed',
            attempts: 0,
            reason: `its signing key (${sink.secret.ask}) is not set yet: run mcpx notify test on a terminal to give it`,
          };
      }
      return sendWebhook(sink, payload, {
        secret,
        pause,
        signal: cutting.signal,
        ...(options.retryDelaysMs ? { delays: options.retryDelaysMs } : {}),
      });
    }
    if ('command' in sink) return runCommand(sink, payload, cutting.signal);
    return showDesktop(payload, options.platform ?? process.platform, options.path ?? process.env.PATH, cutting.signal);
  };

  const audit = (sink: NotifySink, payload: NotifyPayload, request: ElicitRequest, outcome: Outcome): Promise<void> =>
    broker
      .recordEvent({
        kind: KIND_OF[outcome.kind],
        elicit: request.id,
        trace: request.trace,
        session: request.session,
        server: request.server,
        tool: request.tool,
        data: { sink: sink.name, type: sinkKind(sink), on: payload.event, ...outcomeData(outcome) },
      })
      .catch(() => undefined);

  const deliver: Notifications['deliver'] = async (event, request, answer) => {
    const { sinks, policy } = options.setup();
    const chosen = sinksFor(sinks, event, request, policy);
    if (!chosen.length) return [];
    const payload = payloadOf(event, request, { now: now(), link: options.link?.(), answer });
    return Promise.all(
      chosen.map(async (sink) => {
        const outcome = await send(sink, payload).catch((error: unknown): Outcome => ({
          kind: 'failed',
          attempts: 0,
          reason: (error as Error).message,
        }));
        if (event !== 'test') await audit(sink, payload, request, outcome);
        return { sink, outcome };
      }),
    );
  };

  /** Off the call's path: nothing here is awaited by the broker, and nothing thrown reaches it. */
  const track = (work: () => Promise<unknown>): void => {
    const promise = work().catch(() => undefined);
    running.add(promise);
    void promise.finally(() => running.delete(promise));
  };

  const announce = (event: NotifyEvent, id: string, waits = false): void =>
    track(async () => {
      const request = await broker.get(id);
      if (!request) return;
      if (event === 'opened' && !waits && request.state !== 'pending') return;
      const answer = event === 'answered' ? await broker.lookup(id) : undefined;
      await deliver(event, request, answer);
    });

  const unsubscribe = broker.subscribe((event: BrokerEvent) => {
    const id = event.elicit;
    if (!id || stopping.signal.aborted) return;
    if (event.kind === 'elicit.open') {
      if (leftToWait.delete(id)) {
        announce('opened', id, true);
        return;
      }
      const fire = (): void => {
        inGrace.delete(id);
        announce('opened', id);
      };
      const timer = setTimeout(fire, graceMs);
      timer.unref();
      inGrace.set(id, { timer, fire });
    } else if (event.kind === 'elicit.answered' || event.kind === 'elicit.expired') {
      const early = inGrace.get(id);
      // Answered here before anyone needed telling (a policy rule, the script): no "opened" goes out.
      if (early) {
        clearTimeout(early.timer);
        inGrace.delete(id);
      }
      announce(event.kind === 'elicit.answered' ? 'answered' : 'expired', id);
    }
  });

  return {
    deliver,
    async stop(flushMs = 3_000) {
      unsubscribe();
      unhook();
      stopping.abort();
      for (const { timer, fire } of [...inGrace.values()]) {
        clearTimeout(timer);
        fire();
      }
      await within(Promise.allSettled([...running]), flushMs);
      if (!running.size) return;
      cutting.abort();
      // Cut short, a send ends at once; the bound is for what it awaits besides (the store, the secret store).
      await within(Promise.allSettled([...running]), CUT_MS);
    },
  };
}

/** How long stop waits for the sends it cut short to record their failure. */
const CUT_MS = 1_000;

async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function outcomeData(outcome: Outcome): Record<string, unknown> {
  if (outcome.kind === 'skipped') return { reason: outcome.reason };
  if (outcome.kind === 'failed') return { attempts: outcome.attempts, reason: outcome.reason };
  return {
    attempts: outcome.attempts,
    ...(outcome.status !== undefined ? { status: outcome.status } : {}),
    ...(outcome.signed !== undefined ? { signed: outcome.signed } : {}),
  };
}
