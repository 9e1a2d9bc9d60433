/**
 * The CLI's Backend over the daemon's REST routes (CONTRACTS.md). It takes a fetch-shaped function, so the same
 * code talks to a daemon over its unix socket, to an in-process app (daemon.inline), or to `app.request` in a test.
 */
import type { BrokerEvent, Elicitation as ListedQuestion, StoredAnswer } from '../../broker/index.js';
import { McpxError, type McpxErrorCode } from '../../errors.js';
import type { ProgressEvent } from '../../tasks/progress.js';
import type { Answer } from '../../types.js';
import { currentUser } from './current-user.js';
import type { CallResponse } from '../../host/results.js';
import type { Backend, ListFilter, Scope, TaskView } from './backend.js';
import type { DaemonFetch, DaemonResponse } from '../daemon/socket-fetch.js';

export type { DaemonFetch, DaemonResponse };

export interface RestBackendOptions {
  fetch: DaemonFetch;
  /** The daemon runs inside this command (daemon.inline): a call cannot outlive it. Asked when a call returns. */
  inline?: boolean | (() => boolean);
  close?: () => Promise<void>;
}

function userHeader(): Record<string, string> {
  const user = currentUser();
  return user ? { 'x-mcpx-user': user } : {};
}

/** The Backend, plus `send`: one GET or POST whose error body becomes an McpxError (for routes the Backend does not name). */
export function createRestBackend(options: RestBackendOptions): Backend & {
  send<T>(path: string, init?: RequestInit): Promise<T>;
} {
  const { fetch } = options;

  async function send<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
    const response = await fetch(path, init);
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      throw new McpxError(
        'DAEMON_UNAVAILABLE',
        `The daemon answered ${response.status} with something that is not JSON: ${text.slice(0, 200)}`,
      );
    }
    if (response.status >= 400) {
      const error = (body as { error?: { code?: string; message?: string; data?: Record<string, unknown> } } | undefined)?.error;
      throw new McpxError(
        (error?.code ?? 'CALL_FAILED') as McpxErrorCode,
        error?.message ?? `the daemon answered ${response.status}`,
        error?.data ? { data: error.data } : {},
      );
    }
    return { status: response.status, body: body as T };
  }

  const sessionHeader = (session: string | undefined): Record<string, string> => (session ? { 'x-mcpx-session': session } : {});
  const allQuery = (scope: Scope | undefined): string => (scope?.all ? '?all=1' : '');
  // The event stream of the scope's session (every session's for an operator).
  const eventStream = (kinds: string[] | undefined, signal: AbortSignal, scope: Scope | undefined): Promise<DaemonResponse> => {
    const query = new URLSearchParams();
    if (kinds) query.set('kinds', kinds.join(','));
    if (scope?.all) query.set('all', '1');
    return fetch(`/v1/events${query.size ? `?${query}` : ''}`, {
      signal,
      headers: { accept: 'text/event-stream', ...(scope?.all ? {} : sessionHeader(scope?.session)) },
    });
  };

  return {
    kind: 'daemon',

    async call(
      server,
      tool,
      args,
      { session, sessionSource, parent, elicit, elicitTtlMs, method, progressToken, signInOnly, task },
    ) {
      const at = encodeURIComponent(server);
      const path = signInOnly
        ? `/v1/sign-in/${at}/${encodeURIComponent(tool)}`
        : method === 'prompts/get'
          ? `/v1/prompt/${at}/${encodeURIComponent(tool)}`
          : method === 'resources/read'
            ? `/v1/resource/${at}`
            : `/v1/call/${at}/${encodeURIComponent(tool)}`;
      const { body } = await send<CallResponse>(path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...sessionHeader(session),
          ...(session && sessionSource ? { 'x-mcpx-session-source': sessionSource } : {}),
          ...(parent ? { 'x-mcpx-parent': parent } : {}),
          ...(elicit ? { 'x-mcpx-elicit': elicit } : {}),
          ...(elicitTtlMs ? { 'x-mcpx-elicit-ttl-ms': String(Math.ceil(elicitTtlMs)) } : {}),
          ...(progressToken ? { 'x-mcpx-progress-token': progressToken } : {}),
          ...(task ? { 'x-mcpx-task': '1' } : {}),
        },
        body: JSON.stringify(
          typeof signInOnly === 'object' ? { scope: signInOnly.scope } : method === 'resources/read' ? { uri: tool } : args,
        ),
      });
      const inline = typeof options.inline === 'function' ? options.inline() : options.inline;
      return body.status === 'input-required' && inline ? { ...body, inline: true } : body;
    },

    async list({ all, ...filter }: ListFilter) {
      const query = new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => typeof e[1] === 'string'));
      if (all) query.set('all', '1');
      const { body } = await send<{ elicitations: ListedQuestion[] }>(`/v1/elicit${query.size ? `?${query}` : ''}`, {
        headers: all ? {} : sessionHeader(filter.session),
      });
      return body.elicitations;
    },

    async get(id, scope) {
      const { body } = await send<{ elicitation: ListedQuestion; answer?: StoredAnswer }>(
        `/v1/elicit/${encodeURIComponent(id)}${allQuery(scope)}`,
        { headers: sessionHeader(scope?.session) },
      );
      return body;
    },

    async answer(id, answer: Answer, scope) {
      // Recorded as the answer's `by`, so the audit log says the CLI answered, not REST.
      // This process answered; the daemon only relays, so the record names us (§6b).
      const init: RequestInit = {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-mcpx-by': 'cli',
          'x-mcpx-pid': String(process.pid),
          ...userHeader(),
          ...sessionHeader(scope.session),
        },
      };
      if (answer.action === 'accept') init.body = JSON.stringify(answer.content === undefined ? {} : { content: answer.content });
      const { body } = await send<{ answer: StoredAnswer; delivery?: 'delivered' | 'unconfirmed' }>(
        `/v1/elicit/${encodeURIComponent(id)}/${answer.action}${allQuery(scope)}`,
        init,
      );
      return { ...body.answer, ...(body.delivery ? { delivery: body.delivery } : {}) };
    },

    async task(id, { waitSeconds, signal, scope } = {}) {
      const query = new URLSearchParams();
      if (waitSeconds) query.set('wait', String(waitSeconds));
      if (scope?.all) query.set('all', '1');
      const { body } = await send<{ task: TaskView }>(`/v1/tasks/${encodeURIComponent(id)}${query.size ? `?${query}` : ''}`, {
        ...(signal ? { signal } : {}),
        headers: sessionHeader(scope?.session),
      });
      return body.task;
    },

    events({ signal, kinds, onReady, scope }) {
      return readEvents(eventStream(kinds?.length ? kinds : undefined, signal, scope), signal, onReady);
    },

    progress: ({ signal, scope }) => readEvents<ProgressEvent>(eventStream(['call.progress'], signal, scope), signal),

    close: options.close ?? (async () => undefined),

    send: async <T>(path: string, init?: RequestInit) => (await send<T>(path, init)).body,
  };
}

/** Parses a text/event-stream body into broker events; the daemon's `ready` greeting calls `onReady`, keepalives are skipped. */
async function* readEvents<E = BrokerEvent>(
  responding: Promise<DaemonResponse>,
  signal: AbortSignal,
  onReady?: () => void,
): AsyncIterable<E> {
  const response = await responding;
  if (!response.ok || !response.body)
    throw new McpxError('DAEMON_UNAVAILABLE', `the daemon's event stream answered ${response.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (event === 'ready') onReady?.();
        if (event === 'ready' || !data.length) continue;
        yield JSON.parse(data.join('\n')) as E;
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
  }
}
