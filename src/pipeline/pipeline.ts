/**
 * The one ElicitHandler the client seam takes: policy first (what fired is audited), then the question is
 * opened in the broker under the server's own id, then the answerers in order. Whoever answers first wins,
 * including someone answering through the broker from another process (CLI, REST) while an answerer is
 * still busy; at the deadline the broker's expiry cancel is the answer. Nobody answered: `undefined`, and
 * the question stays pending in the broker for anyone to answer later.
 */
import { isMcpxError } from '../errors.js';
import { audienceOf, evaluatePolicy } from '../policy/evaluate.js';
import { parsePolicy, withMode, type Policy, type PolicyMode } from '../policy/schema.js';
import type { Answer, ElicitContext, ElicitHandler, Question } from '../types.js';
import { systemClock } from '../broker/index.js';
import { openInputOf, toAnswer } from '../broker/index.js';
import type { SessionBinding } from '../broker/index.js';
import type { AnsweredBy, Broker, Clock, ElicitRequest, StoredAnswer } from '../broker/index.js';
import { isAction } from '../constants.js';

/** Something that may answer a question: a script's onElicit, a person at a terminal, an agent. */
export interface Answerer {
  kind: 'script' | 'person' | 'agent';
  answer: ElicitHandler;
  /** Recorded as the answer's `by`; defaults to the kind. */
  by?: AnsweredBy;
  /** Named in the audit log when this answerer passes. */
  name?: string | undefined;
}

export interface PipelineOptions {
  broker: Broker;
  /** Default: ask mode, no rules. */
  policy?: Policy;
  /** The session questions are opened under (else the broker's own). */
  session?: string | SessionBinding;
  answerers?: Answerer[];
  /** The mode a question's call asked for (a caller's `--elicit`), applied to the policy for that question only. */
  modeOf?: (question: Question) => PolicyMode | undefined;
  /** For rules with `when` (default: none set). */
  env?: Record<string, string | undefined>;
  clock?: Clock;
}

/** Builds the ElicitHandler that routes a server's question through policy, broker and answerers. */
export function createElicitationPipeline(options: PipelineOptions): ElicitHandler {
  const { broker } = options;
  const policy = options.policy ?? parsePolicy({});
  const answerers = options.answerers ?? [];
  const env = options.env ?? {};
  const clock = options.clock ?? systemClock;
  const binding: Partial<SessionBinding> =
    typeof options.session === 'string' ? { session: options.session, sessionSource: 'explicit' } : (options.session ?? {});

  const byMode = new Map<PolicyMode, Policy>([[policy.mode, policy]]);
  const policyFor = (question: Question): Policy => {
    const mode = options.modeOf?.(question) ?? policy.mode;
    let chosen = byMode.get(mode);
    if (!chosen) byMode.set(mode, (chosen = withMode(policy, mode)));
    return chosen;
  };

  return async (question: Question, context: ElicitContext): Promise<Answer | undefined> => {
    const active = policyFor(question);
    const decision = evaluatePolicy(active, question, env);
    const audience = decision.kind === 'ask' ? decision.audience : audienceOf(active, question);
    const request = await broker.openRequest({
      ...openInputOf(question, audience === 'person' ? 'user' : undefined),
      ...binding,
      ttlMs: Math.max(1, context.expiresAt - clock.now()),
      // Asked, and nobody here to ask: it waits in the broker for any surface (ask returns at once).
      ...(decision.kind === 'ask' && eligibleFor(answerers, decision.audience).length === 0 ? { waits: true } : {}),
    });
    const about = {
      elicit: request.id,
      trace: request.trace,
      session: request.session,
      server: request.server,
      tool: request.tool,
    };

    if (decision.kind === 'refuse') {
      await record(broker, request, { action: 'cancel' }, 'policy');
      await broker.recordEvent({
        kind: 'policy.fired',
        ...about,
        action: 'cancel',
        data: { mode: active.mode, reason: decision.error.message },
      });
      throw decision.error;
    }
    if (decision.kind === 'answer') {
      await broker.recordEvent({
        kind: 'policy.fired',
        ...about,
        action: decision.answer.action,
        ...(decision.fired ? { rule: { index: decision.fired.index, rule: decision.fired.rule } } : {}),
        data: { mode: active.mode, reason: decision.reason },
      });
      return toAnswer(await record(broker, request, decision.answer, 'policy'));
    }
    for (const pass of decision.passed)
      await broker.recordEvent({
        kind: 'elicit.passed',
        ...about,
        data: { answerer: 'policy', rule: pass.index, reason: pass.reason },
      });
    return ask(broker, request, question, context, answerers, decision.audience, about);
  };
}

async function ask(
  broker: Broker,
  request: ElicitRequest,
  question: Question,
  context: ElicitContext,
  answerers: Answerer[],
  audience: 'person' | 'any',
  about: Record<string, string | undefined>,
): Promise<Answer | undefined> {
  const eligible = eligibleFor(answerers, audience);
  // Nobody here to ask: the question waits in the broker for any surface.
  if (eligible.length === 0) return undefined;
  const done = new AbortController();
  const stop = (): void => done.abort();
  context.signal.addEventListener('abort', stop, { once: true });
  // Anyone answering through the broker (another process, the deadline) ends the wait for the answerers.
  const fromBroker = broker.awaitAnswer(request.id, { signal: done.signal }).then(
    (answer) => ({ via: 'broker' as const, answer }),
    () => ({ via: 'stopped' as const }),
  );
  const passed = (answerer: Answerer, reason: string): Promise<void> =>
    broker.recordEvent({
      kind: 'elicit.passed',
      ...about,
      data: { answerer: answerer.kind, ...(answerer.name ? { name: answerer.name } : {}), reason },
    });
  let reRaised = false;
  try {
    for (const answerer of eligible) {
      if (answerer.kind === 'agent' && reRaised) continue;
      if (done.signal.aborted) return undefined;
      const own = new AbortController();
      const forward = (): void => own.abort();
      done.signal.addEventListener('abort', forward, { once: true });
      const attempt = Promise.resolve()
        .then(() => answerer.answer(question, { ...context, signal: own.signal }))
        .then(
          (value) => ({ via: 'answerer' as const, value }),
          (error: unknown) => ({ via: 'error' as const, error }),
        );
      const first = await Promise.race([attempt, fromBroker]);
      own.abort();
      done.signal.removeEventListener('abort', forward);
      if (first.via === 'broker') return toAnswer(first.answer);
      if (first.via === 'stopped') return undefined;
      if (first.via === 'error') {
        if (isMcpxError(first.error, 'ELICITATION_REFUSED')) {
          await record(broker, request, { action: 'cancel' }, answerer.by ?? answerer.kind);
          throw first.error;
        }
        await passed(answerer, `threw: ${(first.error as Error)?.message ?? String(first.error)}`);
        continue;
      }
      const value = first.value as unknown;
      if (value === undefined) {
        await passed(answerer, 'did not answer');
        continue;
      }
      if (!isAnswer(value)) {
        await passed(answerer, `returned something that is not an answer: ${preview(value)}`);
        continue;
      }
      if (answerer.kind === 'agent' && value.action === 'decline') {
        // An agent that cannot know declines; the person gets the question instead of the call failing.
        reRaised = true;
        await passed(answerer, 'the agent declined; re-raised to the person');
        continue;
      }
      try {
        return toAnswer(
          await broker.respond({
            id: request.id,
            action: value.action,
            content: 'content' in value ? value.content : undefined,
            by: answerer.by ?? answerer.kind,
            answerer: answerer.kind,
            session: request.session,
          }),
        );
      } catch (error) {
        if (isMcpxError(error, 'ANSWER_INVALID')) {
          await passed(answerer, error.message);
          continue;
        }
        // mcpx's own question and a script's accept: refused (and audited) by the broker; the person gets it.
        if (isMcpxError(error, 'PERSON_REQUIRED')) {
          await passed(answerer, `its accept was refused (${error.code}); re-raised to the person`);
          continue;
        }
        const winner = isMcpxError(error) ? (error.data?.answer as StoredAnswer | undefined) : undefined;
        if (winner) return toAnswer(winner);
        throw error;
      }
    }
    return undefined;
  } finally {
    done.abort();
    context.signal.removeEventListener('abort', stop);
    await fromBroker;
  }
}

/** The answerers that may answer a question for this audience (an agent never answers one meant for a person). */
const eligibleFor = (answerers: Answerer[], audience: 'person' | 'any'): Answerer[] =>
  answerers.filter((a) => !(a.kind === 'agent' && audience === 'person'));

/** Records the answer; when someone else got there first, their answer is the one that counts. */
async function record(broker: Broker, request: ElicitRequest, answer: Answer, by: AnsweredBy): Promise<StoredAnswer> {
  try {
    return await broker.respond({
      id: request.id,
      action: answer.action,
      content: answer.action === 'accept' ? answer.content : undefined,
      by,
      session: request.session,
    });
  } catch (error) {
    const winner = isMcpxError(error) ? (error.data?.answer as StoredAnswer | undefined) : undefined;
    if (winner) return winner;
    throw error;
  }
}

function isAnswer(value: unknown): value is Answer {
  if (typeof value !== 'object' || value === null) return false;
  const { action, content } = value as { action?: unknown; content?: unknown };
  if (!isAction(action)) return false;
  return content === undefined || (typeof content === 'object' && content !== null && !Array.isArray(content));
}

function preview(value: unknown): string {
  try {
    return JSON.stringify(value).slice(0, 80);
  } catch {
    return typeof value;
  }
}
