/**
 * How the opencode plugin reaches questions: the daemon of the project's config over its socket (REST, and its
 * event stream: no polling while a daemon is up), else the state store directly. A daemon that starts later
 * (the agent's first `mcpx call` starts one) is picked up at the next hook, not by polling.
 */
import type { BrokerEvent, Elicitation } from '../../broker/index.js';
import { findConfigPath } from '../../config/find.js';
import type { Answer } from '../../types.js';
import type { Backend } from '../backend/backend.js';

type Env = Record<string, string | undefined>;

export interface QuestionLink {
  /** Pending questions of one session. */
  pending(session: string): Promise<Elicitation[]>;
  /** The question, when it is this session's. */
  get(id: string, session: string): Promise<Elicitation | undefined>;
  answer(id: string, answer: Answer, session: string): Promise<void>;
  /** Subscribes to the daemon's events when one runs and no subscription is live; a no-op otherwise. */
  follow(onEvent: (event: BrokerEvent) => void): Promise<void>;
  readonly following: boolean;
  close(): Promise<void>;
}

export function createQuestionLink(env: Env, directory: string, config: string | undefined): QuestionLink {
  const configPath = findConfigPath(config, directory, env);
  const stop = new AbortController();
  let subscription: { backend: Backend; done: Promise<void> } | undefined;

  /** The daemon when it runs, else the store; the caller closes it. */
  const open = async (): Promise<Backend> => {
    const [{ connectDaemon }, { createRestBackend }] = await Promise.all([
      import('../daemon/client.js'),
      import('../backend/rest-backend.js'),
    ]);
    const client = await connectDaemon(env, configPath);
    if (client) return createRestBackend({ fetch: client.fetch, close: () => client.close() });
    const { createStoreBackend } = await import('../backend/store-backend.js');
    return createStoreBackend(env);
  };

  const using = async <T>(run: (backend: Backend) => Promise<T>): Promise<T> => {
    const backend = await open();
    try {
      return await run(backend);
    } finally {
      await backend.close();
    }
  };

  return {
    pending: (session) => using((b) => b.list({ session })),
    get: (id, session) => using(async (b) => (await b.get(id, { session }).catch(() => undefined))?.elicitation),
    answer: (id, answer, session) => using(async (b) => void (await b.answer(id, answer, { session }))),
    get following() {
      return subscription !== undefined;
    },
    async follow(onEvent) {
      if (subscription || stop.signal.aborted) return;
      const backend = await open();
      if (backend.kind !== 'daemon') return void (await backend.close());
      let ready!: () => void;
      const live = new Promise<void>((resolve) => (ready = resolve));
      const done = (async () => {
        try {
          // Every session's: the plugin serves each opencode session, and reads and answers within that one's scope.
          for await (const event of backend.events({ signal: stop.signal, onReady: ready, scope: { all: true } })) onEvent(event);
        } catch {
          // the daemon went away: the next hook subscribes again
        } finally {
          ready();
          subscription = undefined;
          await backend.close();
        }
      })();
      subscription = { backend, done };
      await live;
    },
    async close() {
      stop.abort();
      await subscription?.done;
    },
  };
}
