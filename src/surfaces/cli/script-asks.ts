/**
 * A script's `ask()` that nobody here can answer: the question is opened in the state store like a server's (the
 * run stops with exit 75 and the commands that answer it), and anyone answers it later from any process. The
 * script then runs again and replays: each `ask()` already answered returns that answer, in order, and the run
 * goes on to the next question or to its end. Answers are used up when a run gets past its questions (it ends,
 * or fails); a run that stops at a question keeps them for the next.
 */
import { createHash } from 'node:crypto';
import type { Keyv } from 'keyv';
import type { Broker, ElicitRequest } from '../../broker/index.js';
import { toAnswer } from '../../broker/index.js';
import type { AskRequest } from '../../runtime/index.js';
import type { Answer } from '../../types.js';

const PREFIX = 'script-ask:';
/** How long a question a script left open is remembered after its deadline (the broker keeps its records as long). */
const RETAIN_MS = 7 * 24 * 3600_000;

export interface AskReplay {
  /** The key of this ask() in this run: the script, the question and how many times the run asked it before. */
  keyOf(request: AskRequest): string;
  /** What an earlier run left for this ask(): its answer, or the question still waiting for one. */
  recall(key: string): Promise<{ answer: Answer } | { waiting: ElicitRequest } | undefined>;
  /** Remembers the question this ask() left open, for the next run. */
  remember(key: string, id: string, ttlMs: number): Promise<void>;
  /** The run got past its questions: the answers it replayed are used up. */
  forget(): Promise<void>;
}

/**
 * `script` names the script (its path and a hash of its text, so an edited script asks afresh); `scope` what else
 * makes two runs the same (the directory, the session).
 */
export function createAskReplay(options: { keyv: Keyv; broker: Broker; script: string; scope: string }): AskReplay {
  const { keyv, broker } = options;
  const asked = new Map<string, number>();
  const replayed: string[] = [];
  return {
    keyOf(request) {
      const question = JSON.stringify([request.message, request.requestedSchema]);
      const count = asked.get(question) ?? 0;
      asked.set(question, count + 1);
      const hash = createHash('sha256').update(JSON.stringify([options.scope, options.script, question, count]));
      return hash.digest('hex').slice(0, 32);
    },
    async recall(key) {
      const id = (await keyv.get(PREFIX + key)) as string | undefined;
      if (!id) return undefined;
      const request = await broker.get(id);
      if (request?.state === 'pending') return { waiting: request };
      const answer = request?.state === 'answered' ? await broker.lookup(id) : undefined;
      if (!answer) return undefined; // expired or abandoned: ask afresh
      replayed.push(key);
      return { answer: toAnswer(answer) };
    },
    async remember(key, id, ttlMs) {
      await keyv.set(PREFIX + key, id, ttlMs + RETAIN_MS);
    },
    async forget() {
      for (const key of replayed.splice(0)) await keyv.delete(PREFIX + key);
    },
  };
}

/** A stable text of what identifies a script: its path and its text. */
export function scriptIdentity(path: string, source: string): string {
  return `${path}#${createHash('sha256').update(source).digest('hex').slice(0, 16)}`;
}
