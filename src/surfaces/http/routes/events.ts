/** The event stream: every broker event as server-sent events, with an optional replay from the audit log. */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import type { BrokerEvent } from '../../../broker/index.js';
import type { ProgressEvent } from '../../../tasks/progress.js';
import { errors } from '../openapi.js';
import { EventSchema, EventsQuery, SessionHeaders } from '../schemas.js';
import type { RouteContext } from './context.js';
import { eventSession } from '../../../broker/index.js';
import { scopeOf } from '../scope.js';

const eventsRoute = createRoute({
  method: 'get',
  path: '/v1/events',
  operationId: 'events',
  summary:
    "Server-sent events: every broker event of the caller's session (every session's for an operator: ?all=1 or the bearer token) (elicit.open, elicit.answered, elicit.expired, elicit.resumed, elicit.abandoned, elicit.passed, policy.fired), after a first `ready` event; with ?since=ms, the audit log from then is replayed first. call.progress (a server's progress on a call the daemon drives; never in the audit log) only when ?kinds names it.",
  request: { query: EventsQuery, headers: SessionHeaders },
  responses: {
    200: { content: { 'text/event-stream': { schema: EventSchema } }, description: 'An event stream' },
    ...errors(401),
  },
});

export function mountEventsRoute(app: OpenAPIHono, { deps }: RouteContext): void {
  const { broker } = deps;
  app.openapi(eventsRoute, (c) => {
    const query = c.req.valid('query');
    const kinds = query.kinds ? new Set(query.kinds.split(',').map((k) => k.trim())) : undefined;
    const keepAliveMs = deps.keepAliveMs ?? 15_000;
    // Events are bound as questions are: the caller's own session's, every session's only for an operator.
    const session = eventSession(scopeOf(c, deps.defaultSession), query.session);
    return streamSSE(c, async (stream) => {
      const queue: Array<BrokerEvent | ProgressEvent> = [];
      let wake: (() => void) | undefined;
      let open = true;
      const listener = (event: BrokerEvent | ProgressEvent): void => {
        if (kinds && !kinds.has(event.kind)) return;
        if (session !== undefined && event.session !== undefined && event.session !== session) return;
        queue.push(event);
        wake?.();
      };
      const offBroker = broker.subscribe(listener);
      // Progress can come many times a second: only to a stream that asked for it by name.
      const offProgress = kinds?.has('call.progress') && deps.progress ? deps.progress.subscribe(listener) : undefined;
      const unsubscribe = (): void => {
        offBroker();
        offProgress?.();
      };
      stream.onAbort(() => {
        open = false;
        unsubscribe();
        wake?.();
      });
      // A paired device revoked while it follows: its stream ends at once.
      const revoked = c.get('mcpxRevoked');
      const end = (): void => {
        open = false;
        wake?.();
      };
      if (revoked?.aborted) open = false;
      else revoked?.addEventListener('abort', end, { once: true });
      let seq = 0;
      await stream.writeSSE({ event: 'ready', data: JSON.stringify({ pid: deps.info.pid }), id: String(seq++) });
      if (query.since !== undefined) {
        // Replay from the audit log, then the live events that arrived meanwhile, each once.
        const keyOf = (e: BrokerEvent | ProgressEvent): string =>
          `${e.kind}|${e.at}|${'elicit' in e ? (e.elicit ?? '') : ''}|${e.trace ?? ''}|${e.pid}`;
        const history = (await broker.audit({ since: query.since, ...(session !== undefined ? { session } : {}) })).filter(
          (e) => e.at >= query.since! && (!kinds || kinds.has(e.kind)),
        );
        const replayed = new Set(history.map(keyOf));
        const live = queue.splice(0).filter((e) => !replayed.has(keyOf(e)));
        queue.push(...history, ...live);
      }
      while (open) {
        if (!queue.length) {
          const timedOut = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(true), keepAliveMs);
            wake = () => {
              clearTimeout(timer);
              resolve(false);
            };
          });
          wake = undefined;
          if (timedOut && open) await stream.write(': keepalive\n\n');
          continue;
        }
        const event = queue.shift()!;
        await stream.writeSSE({ event: event.kind, data: JSON.stringify(event), id: String(seq++) });
      }
      unsubscribe();
      revoked?.removeEventListener('abort', end);
    });
  });
}
