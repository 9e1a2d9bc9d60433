/**
 * The broker's writing operations over its core (broker-core.ts): open a question, answer it (the answer row is the
 * claim: respond, expiry and every process race on one atomic put-if-absent, and the loser reads the winner), and
 * abandon it.
 */
import { McpxError } from '../errors.js';
import { keepSecretContent } from '../secrets/answer.js';
import { newElicitationId } from '../ids.js';
import {
  abandoned,
  answerOf,
  checkAnswerContent,
  checkRespondInput,
  checkTtl,
  eventFor,
  forbidden,
  newRequest,
  notFound,
  refuseAnswered,
} from './records.js';
import { personOnlyRefusal } from './person-only.js';
import { offerGone, putOffer } from './offers.js';
import { askOpenHooks, noHooksSaid, writeQuestion } from './open-hooks.js';
import { brokerClaims, type BrokerCore } from './broker-core.js';
import type { BrokerEvent, ElicitRequest, OpenRequestInput, RespondInput, StoredAnswer } from './types.js';

export async function openQuestion(core: BrokerCore, input: OpenRequestInput): Promise<ElicitRequest> {
  core.ensureOpen();
  const now = core.clock.now();
  const requestTtl = checkTtl(input.ttlMs ?? core.ttlMs);
  const filled = {
    id: input.id ?? newElicitationId(),
    session: input.session ?? core.own?.session ?? 'default',
    sessionSource: input.sessionSource ?? (input.session ? 'explicit' : (core.own?.sessionSource ?? 'explicit')),
    createdAt: now,
    expiresAt: now + requestTtl,
  };
  const asked = newRequest(input, filled);
  const said =
    core.openHooks.size === 0
      ? noHooksSaid(asked)
      : await askOpenHooks(core.openHooks, asked, (task) => newRequest({ ...input, task }, filled), {
          waits: input.waits === true,
        });
  const { request } = said;
  let write: Promise<boolean>;
  let watching: ReturnType<typeof core.openWatches.begin>;
  let event: BrokerEvent;
  try {
    event = eventFor('elicit.open', request, now, {
      data: { sessionSource: request.sessionSource, expiresAt: request.expiresAt, mode: request.mode },
    });
    // Watched from before the write, so the wait that follows needs no read (open-watches.ts).
    watching = core.openWatches.begin(request.id);
    write = core.guard(writeQuestion(core.store, request, core.rowTtl(request), event, said), () => watching.drop());
  } catch (error) {
    said.tell(() => Promise.reject(error));
    throw error;
  }
  said.tell(() => write);
  const written = await write;
  if (!written) {
    watching.drop();
    // Opening the same id twice is idempotent: the first question stands.
    const existing = await core.guard(core.store.getEntry(request.id));
    if (existing.request) return core.withState(existing.request, existing.answer);
  } else watching.keep();
  core.expiry.schedule(request);
  core.remember(request);
  core.notify(event);
  return { ...request };
}

export async function respondTo(core: BrokerCore, input: RespondInput): Promise<StoredAnswer> {
  core.ensureOpen();
  checkRespondInput(input);
  // Recorded before the first await, so a wait on this question sees it from the start (waiter.ts).
  const responding = claimResponse(core, input);
  core.responding.set(input.id, responding);
  try {
    return await responding;
  } finally {
    if (core.responding.get(input.id) === responding) core.responding.delete(input.id);
  }
}

async function claimResponse(core: BrokerCore, input: RespondInput): Promise<StoredAnswer> {
  // A question known here skips the read: the claim below checks in the store that it is still open.
  const cached = core.known.get(input.id);
  if (cached && !core.visible(cached, input.session)) throw forbidden(input.id, cached.session);
  const { request, answer: existing } = cached
    ? { request: cached, answer: undefined }
    : await core.load(input.id, input.session);
  if (existing) refuseAnswered(request, existing);
  if (request.state === 'abandoned') throw abandoned(request);
  const now = core.clock.now();
  if (now >= request.expiresAt) refuseAnswered(request, await core.expiry.expire(request));
  const refusal = personOnlyRefusal(request, input, now);
  if (refusal) {
    await core.emit(refusal.event);
    throw refusal.error;
  }
  let content = checkAnswerContent(request, input);
  // A secret is kept before the answer is claimed: if it cannot be kept, nothing is recorded and the question still waits.
  if (request.secret && content !== undefined)
    content = await keepSecretContent(request.secret, content, await core.secretStore());
  const answering = input.session ?? core.own?.session;
  const { answer, event } = answerOf(request, input, now, content, answering);
  // A held legacy call's answer counts only once its holder takes it: offered, not claimed (offers.ts).
  if (input.offer && request.era === 'legacy' && request.task)
    return core.guard(putOffer(core.store, { answer, event }, core.rowTtl(request)));
  brokerClaims.add(event);
  if (!(await core.guard(core.store.claimAnswer(answer, core.rowTtl(request), event, { open: true })))) {
    // Lost: to an answer, an abandon, or the question is gone. One read says which.
    core.known.delete(request.id);
    const current = await core.guard(core.store.getEntry(request.id));
    if (current.answer) refuseAnswered(request, current.answer);
    if (!current.request) throw notFound(request.id);
    if (current.request.state === 'abandoned') throw abandoned(current.request);
    throw new McpxError('STORE_UNAVAILABLE', `the ${core.store.kind} store refused the answer to ${request.id} but holds none`, {
      data: { id: request.id },
    });
  }
  core.known.delete(request.id);
  core.expiry.clear(request.id);
  core.notify(event);
  return { ...answer };
}

export async function abandonQuestion(core: BrokerCore, id: string, reason: string): Promise<ElicitRequest> {
  core.ensureOpen();
  const { request, answer: stored } = await core.load(id);
  const answer = stored ?? (core.clock.now() >= request.expiresAt ? await core.expiry.expire(request) : undefined);
  if (answer) refuseAnswered(request, answer);
  if (request.state === 'abandoned') return request;
  const updated: ElicitRequest = { ...request, state: 'abandoned', abandonedReason: reason };
  // Conditional on no answer, atomically: a respond racing this either lands first (and we refuse) or is refused.
  if (!(await core.guard(core.store.updateQuestion(updated, core.rowTtl(updated))))) {
    const winner = await core.guard(core.store.getAnswer(id));
    if (winner) refuseAnswered(request, winner);
    throw new McpxError('STORE_UNAVAILABLE', `the ${core.store.kind} store refused to abandon ${id} but holds no answer`, {
      data: { id },
    });
  }
  core.known.delete(id);
  core.openWatches.forget(id);
  // An answer offered for a held call waits on its holder: its answerer hears of the abandon now.
  if (request.era === 'legacy' && request.task) await offerGone(core.store, id, core.rowTtl(updated));
  await core.emit({
    kind: 'elicit.abandoned',
    elicit: id,
    trace: request.trace,
    parent: request.parent,
    session: request.session,
    server: request.server,
    tool: request.tool,
    data: { reason },
  });
  return updated;
}
