/**
 * What `mcpx serve` passes between its client and the upstreams besides calls: the client's log level, a call's
 * progress and log messages (relayed to the request that made the call, under the client's own progress token),
 * completions, and resource subscriptions.
 */
import {
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallNotifications, CallProgress } from '../../client/index.js';
import type { ServeCore } from './core.js';

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The log level a connection's client asked for: per request (modern) or by `logging/setLevel` (legacy). */
export interface LogLevels {
  of(ctx: ServerContext): string | undefined;
}

export function registerPassThrough(server: Server, core: ServeCore, era: 'legacy' | 'modern'): LogLevels {
  let legacyLevel: string | undefined;
  server.setRequestHandler('logging/setLevel', async (request) => {
    legacyLevel = request.params.level;
    return {};
  });

  server.setRequestHandler('completion/complete', async (request) => {
    const ref = request.params.ref as { type: string; name?: string; uri?: string };
    const catalog = await core.catalog();
    const only = core.serverNames().length === 1 ? core.serverNames()[0] : undefined;
    if (ref.type === 'ref/prompt') {
      const prompt = catalog.promptsByName.get(ref.name ?? '');
      if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${ref.name} (see prompts/list)`);
      return complete(core, prompt.server, { ...request.params, ref: { ...ref, name: prompt.tool } });
    }
    const owner = catalog.serverOfTemplate.get(ref.uri ?? '') ?? catalog.serverOfUri.get(ref.uri ?? '') ?? only;
    if (!owner) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
    return complete(core, owner, request.params);
  });

  // Forwarded where the upstream takes subscriptions (a legacy server that declares them); kept either way, and
  // the upstream's updates of a kept one are told to this client until it unsubscribes or goes.
  const watching = new Map<string, () => Promise<void>>();
  const closed = server.onclose;
  server.onclose = () => {
    closed?.();
    for (const unwatch of watching.values()) void unwatch().catch(() => undefined);
    watching.clear();
  };
  const subscription = (on: boolean) => async (request: { params: { uri: string } }) => {
    const { uri } = request.params;
    const catalog = await core.catalog();
    const owner = catalog.serverOfUri.get(uri) ?? (core.serverNames().length === 1 ? core.serverNames()[0] : undefined);
    if (!owner) throw new ProtocolError(-32002 as ProtocolErrorCode, `Resource not found: ${uri}`, { uri });
    try {
      if (on && !watching.has(uri))
        watching.set(
          uri,
          await core.watchResource(owner, uri, () => void server.sendResourceUpdated({ uri }).catch(() => undefined)),
        );
      if (!on) {
        const unwatch = watching.get(uri);
        watching.delete(uri);
        await unwatch?.();
      }
    } catch (error) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `mcpx: ${owner} refused the ${on ? 'subscription' : 'unsubscription'} to ${uri}: ${(error as Error)?.message ?? String(error)}`,
      );
    }
    return {};
  };
  server.setRequestHandler('resources/subscribe', subscription(true));
  server.setRequestHandler('resources/unsubscribe', subscription(false));

  return {
    of: (ctx) =>
      era === 'modern'
        ? ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY] as string | undefined)
        : legacyLevel,
  };
}

async function complete(core: ServeCore, server: string, params: Record<string, unknown>): Promise<never> {
  try {
    return (await core.mcpx.complete(server, params)) as never;
  } catch (error) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `mcpx: ${server} could not complete: ${(error as Error)?.message ?? String(error)}`,
    );
  }
}

/**
 * Where a call's notifications go: to the request that made it, under its client's progress token (if it sent
 * one), and log messages at the client's level and above (if it asked for one). Undefined: nothing is wanted.
 */
export function callNotifications(ctx: ServerContext, level: string | undefined): CallNotifications | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  const floor = level === undefined ? -1 : LEVELS.indexOf(level);
  if (token === undefined && floor < 0) return undefined;
  // The client's request may be over (answered input_required) while the upstream call goes on: nothing to tell.
  const send = (notification: { method: string; params: Record<string, unknown> }): void =>
    void ctx.mcpReq.notify(notification as never).catch(() => undefined);
  return {
    ...(token !== undefined
      ? { onProgress: (p) => send({ method: 'notifications/progress', params: { ...p, progressToken: token } }) }
      : {}),
    ...(floor >= 0
      ? {
          logLevel: level!,
          onLog: (p) => {
            if (LEVELS.indexOf(p.level) >= floor) send({ method: 'notifications/message', params: p });
          },
        }
      : {}),
  };
}

/** A call's notifications, sent wherever the request now waiting on the call is (CallRoute.to). */
export interface CallRoute extends CallNotifications {
  /** From now on they go to this request; any kept while none waited go to it first. */
  to(receiver: CallNotifications | undefined): void;
  /**
   * The request was answered (input_required) and the call goes on: keep its notifications for the client's
   * retry, instead of sending them on a request that is over.
   */
  hold(): void;
}

type LogParams = Parameters<NonNullable<CallNotifications['onLog']>>[0];

/** At most this many notifications wait for a retry; the oldest go first. */
const HELD_MAX = 100;

/**
 * Read through at each notification (and as each upstream request is sent), never copied: a modern client's retry
 * is a new request, with its own progress token and level, and the resumed call's notifications are its.
 */
export function callRoute(receiver: CallNotifications | undefined): CallRoute {
  let current = receiver;
  let held: Array<(to: CallNotifications) => void> | undefined;
  const keep = (send: (to: CallNotifications) => void): void => {
    held!.push(send);
    if (held!.length > HELD_MAX) held!.shift();
  };
  return {
    to(next) {
      const waiting = held ?? [];
      held = undefined;
      current = next;
      if (next) for (const send of waiting) send(next);
    },
    hold: () => void (held ??= []),
    get onProgress() {
      return held ? (p: CallProgress) => keep((to) => to.onProgress?.(p)) : current?.onProgress;
    },
    // While held, the upstream keeps the level last asked: the retry filters by its own.
    get logLevel() {
      return current?.logLevel;
    },
    get onLog() {
      return held ? (p: LogParams) => keep((to) => to.onLog?.(p)) : current?.onLog;
    },
  } as CallRoute;
}
