/**
 * A question asked from outside an MCP call (an agent's hook): policy first, then it waits in the broker for
 * anyone to answer, up to a bound. Nobody answering is a value, never an invented answer.
 */
import { isMcpxError } from '../errors.js';
import type { Policy } from '../policy/index.js';
import type { Answer, Question } from '../types.js';
import { systemClock, toAnswer, type Broker, type Clock, type SessionBinding, type StoredAnswer } from '../broker/index.js';
import { createElicitationPipeline } from './pipeline.js';

/** What happens when nobody answers in time: the broker's expiry cancel, or the question handed back (abandoned). */
export type NoAnswer = 'cancel' | 'hand-back';

/** How much longer than the wait a handed-back question lives, so the hand-back (not the expiry) ends it. */
const HAND_BACK_GRACE_MS = 1_000;

export interface HoldOptions {
  broker: Broker;
  policy: Policy;
  session: SessionBinding;
  /** How long the question waits for an answer (ms). */
  waitMs: number;
  noAnswer: NoAnswer;
  /** Why a handed-back question is abandoned (the audit log says it). */
  handBackReason: string;
  /** Aborts the wait early (the asker is stopped): the question is abandoned, and nothing is answered. */
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
  clock?: Clock;
}

/** The answer (a policy's, anyone's through the broker, or the expiry cancel), or undefined when handed back. */
export async function holdQuestion(question: Question, options: HoldOptions): Promise<Answer | undefined> {
  const { broker, clock = systemClock } = options;
  const ttlMs = options.waitMs + (options.noAnswer === 'hand-back' ? HAND_BACK_GRACE_MS : 0);
  const pipeline = createElicitationPipeline({
    broker,
    policy: options.policy,
    session: options.session,
    ...(options.env ? { env: options.env } : {}),
    clock,
  });
  // No call to abort: the hook's own stop is handled by the wait below.
  const never = new AbortController().signal;
  let answer: Answer | undefined;
  try {
    answer = await pipeline(question, { signal: never, arguments: {}, expiresAt: clock.now() + ttlMs });
  } catch (error) {
    // Error mode: the pipeline recorded the policy's cancel before refusing; that cancel is the answer.
    if (isMcpxError(error, 'ELICITATION_REFUSED')) return { action: 'cancel' };
    throw error;
  }
  if (answer) return answer;
  return waitOrHandBack(question.id, options, clock);
}

async function waitOrHandBack(id: string, options: HoldOptions, clock: Clock): Promise<Answer | undefined> {
  const { broker } = options;
  const waiting = new AbortController();
  const timer = options.noAnswer === 'hand-back' ? clock.setTimer(() => waiting.abort(), options.waitMs) : undefined;
  const stop = (): void => waiting.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    // With `cancel`, the question's deadline is the wait: the broker's expiry cancel ends it.
    return toAnswer(await broker.awaitAnswer(id, { signal: waiting.signal }));
  } catch (error) {
    if (!waiting.signal.aborted) throw error;
    const reason = options.signal?.aborted ? 'the hook was stopped before anyone answered' : options.handBackReason;
    const winner = await abandonUnlessAnswered(broker, id, reason);
    return winner ? toAnswer(winner) : undefined;
  } finally {
    if (timer !== undefined) clock.clearTimer(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}

/** Abandons the question; an answer that landed first is returned instead (it stands, and is passed on). */
async function abandonUnlessAnswered(broker: Broker, id: string, reason: string): Promise<StoredAnswer | undefined> {
  try {
    await broker.abandon(id, reason);
    return undefined;
  } catch (error) {
    const winner = isMcpxError(error) ? (error.data?.answer as StoredAnswer | undefined) : undefined;
    if (winner) return winner;
    throw error;
  }
}
