import { afterEach, describe, expect, it } from 'vitest';
import {
  createBroker,
  createManualClock,
  resolveSession,
  systemClock,
  type BrokerEvent,
  type OpenRequestInput,
  type StoreBroker,
} from '../../src/broker/index.js';
import { isMcpxError, type McpxError } from '../../src/errors.js';
import { ELICITATION_ID } from '../../src/ids.js';

const question = (over: Partial<OpenRequestInput> = {}): OpenRequestInput => ({
  trace: 'cal-00000000000000a1',
  server: 'github',
  tool: 'create_issue',
  mode: 'form',
  message: 'Which repository?',
  era: 'legacy',
  requestedSchema: {
    type: 'object',
    properties: { repo: { type: 'string', minLength: 1 }, labels: { type: 'string', default: 'bug' } },
    required: ['repo'],
  },
  ...over,
});

async function rejection(promise: Promise<unknown>): Promise<McpxError> {
  try {
    await promise;
  } catch (error) {
    if (isMcpxError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('broker', () => {
  let broker: StoreBroker;
  let clock: ReturnType<typeof createManualClock>;
  let events: BrokerEvent[];

  const make = (options: Parameters<typeof createBroker>[0] = {}): StoreBroker => {
    clock = createManualClock();
    broker = createBroker({ clock, session: 'sess-a', ...options });
    events = [];
    broker.subscribe((e) => events.push(e));
    return broker;
  };

  afterEach(async () => {
    await broker?.close();
  });

  it('opens a question with an id, a session and a deadline of created + TTL', async () => {
    make();
    const request = await broker.openRequest(question());
    expect(request.id).toMatch(ELICITATION_ID);
    expect(request).toMatchObject({
      state: 'pending',
      session: 'sess-a',
      sessionSource: 'explicit',
      createdAt: clock.now(),
      expiresAt: clock.now() + 120_000,
    });
    expect(events.map((e) => e.kind)).toEqual(['elicit.open']);
    expect(events[0]).toMatchObject({ elicit: request.id, trace: 'cal-00000000000000a1', session: 'sess-a', pid: process.pid });
  });

  it('takes the TTL per broker and per request', async () => {
    make({ ttlMs: 5_000 });
    const byBroker = await broker.openRequest(question());
    const byRequest = await broker.openRequest(question({ ttlMs: 900 }));
    expect(byBroker.expiresAt - byBroker.createdAt).toBe(5_000);
    expect(byRequest.expiresAt - byRequest.createdAt).toBe(900);
  });

  it('moves pending to answered on the first respond and refuses the second', async () => {
    make();
    const { id } = await broker.openRequest(question());
    clock.advance(1_500);
    const answer = await broker.respond({ id, action: 'accept', content: { repo: 'mcpx' }, by: 'cli' });
    expect(answer).toMatchObject({ action: 'accept', content: { repo: 'mcpx', labels: 'bug' }, by: 'cli', pid: process.pid });
    expect((await broker.get(id))?.state).toBe('answered');
    expect(await broker.lookup(id)).toEqual(answer);
    const second = await rejection(broker.respond({ id, action: 'decline', by: 'http' }));
    expect(second.code).toBe('ELICITATION_ALREADY_ANSWERED');
    expect(second.data?.answer).toEqual(answer);
    const answered = events.find((e) => e.kind === 'elicit.answered');
    expect(answered).toMatchObject({ elicit: id, action: 'accept', by: 'cli', answeredAfterMs: 1_500 });
  });

  it('keeps decline and cancel apart', async () => {
    make();
    const a = await broker.openRequest(question());
    const b = await broker.openRequest(question());
    expect((await broker.respond({ id: a.id, action: 'decline', by: 'cli' })).action).toBe('decline');
    expect((await broker.respond({ id: b.id, action: 'cancel', by: 'cli' })).action).toBe('cancel');
  });

  it('answers cancel by expiry exactly once when the TTL lapses, never decline', async () => {
    make({ ttlMs: 10_000 });
    const { id } = await broker.openRequest(question());
    const waiting = broker.awaitAnswer(id);
    const second = broker.awaitAnswer(id);
    clock.advance(9_999);
    await flush();
    expect((await broker.get(id))?.state).toBe('pending');
    clock.advance(1);
    const [one, two] = await Promise.all([waiting, second]);
    expect(one).toMatchObject({ action: 'cancel', by: 'expiry' });
    expect(two).toEqual(one);
    await flush();
    expect((await broker.get(id))?.state).toBe('expired');
    expect(events.filter((e) => e.kind === 'elicit.expired')).toHaveLength(1);
    expect(events.some((e) => e.kind === 'elicit.answered')).toBe(false);
  });

  it('writes the expiry cancel when a lapsed question is next looked at, with nobody waiting', async () => {
    make({ ttlMs: 1_000 });
    const { id } = await broker.openRequest(question());
    clock.advance(5_000);
    expect(await broker.lookup(id)).toMatchObject({ action: 'cancel', by: 'expiry' });
    expect(await broker.pending()).toEqual([]);
    expect(events.filter((e) => e.kind === 'elicit.expired')).toHaveLength(1);
  });

  it('refuses a respond at or after the deadline with ELICITATION_EXPIRED', async () => {
    make({ ttlMs: 1_000 });
    const { id, expiresAt } = await broker.openRequest(question());
    clock.set(expiresAt);
    const error = await rejection(broker.respond({ id, action: 'accept', content: { repo: 'late' }, by: 'cli' }));
    expect(error.code).toBe('ELICITATION_EXPIRED');
    expect(await broker.lookup(id)).toMatchObject({ action: 'cancel', by: 'expiry' });
  });

  it('lets exactly one of a respond and the expiry win when they race', async () => {
    const outcomes = new Set<boolean>();
    for (let round = 0; round < 20; round++) {
      make({ ttlMs: 1_000 });
      const { id } = await broker.openRequest(question());
      const waiting = broker.awaitAnswer(id);
      clock.advance(999);
      // Answered from another broker on the store (another process): its respond reads the question first.
      // (A broker that knows the question claims at once; that leaves no room for the expiry in between.)
      const other = createBroker({ clock, session: 'sess-a', store: broker.store });
      other.subscribe((e) => events.push(e));
      // The respond passes its deadline check, then the deadline fires before its claim lands.
      const responding = other.respond({ id, action: 'accept', content: { repo: `r${round}` }, by: 'cli' }).then(
        (answer) => ({ ok: true as const, answer }),
        (error: McpxError) => ({ ok: false as const, error }),
      );
      // Each round lets the respond get a little further before the deadline fires: before its check,
      // between its check and its claim, or after its claim.
      for (let tick = 0; tick < round * 3; tick++) await Promise.resolve();
      clock.advance(1);
      const [outcome, awaited] = await Promise.all([responding, waiting]);
      outcomes.add(outcome.ok);
      await flush();
      const stored = await broker.lookup(id);
      expect(awaited).toEqual(stored);
      const answeredEvents = events.filter((e) => e.kind === 'elicit.answered' || e.kind === 'elicit.expired');
      expect(answeredEvents).toHaveLength(1);
      if (outcome.ok) {
        expect(stored).toMatchObject({ action: 'accept', by: 'cli' });
        expect(answeredEvents[0]?.kind).toBe('elicit.answered');
      } else {
        expect(outcome.error.code).toBe('ELICITATION_EXPIRED');
        expect(stored).toMatchObject({ action: 'cancel', by: 'expiry' });
        expect(answeredEvents[0]?.kind).toBe('elicit.expired');
      }
      await other.close();
      await broker.close();
    }
    expect([...outcomes].sort()).toEqual([false, true]);
  });

  it('marks a question abandoned, keeps it, and says an answer can no longer be used', async () => {
    make();
    const { id } = await broker.openRequest(question());
    const waiting = rejection(broker.awaitAnswer(id));
    const abandoned = await broker.abandon(id, 'the process that held the legacy call died');
    expect(abandoned).toMatchObject({ state: 'abandoned', abandonedReason: 'the process that held the legacy call died' });
    expect((await broker.get(id))?.state).toBe('abandoned');
    expect((await broker.pending({ state: 'abandoned' })).map((p) => p.id)).toEqual([id]);
    const error = await rejection(broker.respond({ id, action: 'accept', content: { repo: 'x' }, by: 'cli' }));
    expect(error.code).toBe('ELICITATION_ABANDONED');
    expect(error.message).toMatch(/can no longer use/);
    expect((await rejection(broker.awaitAnswer(id))).code).toBe('ELICITATION_ABANDONED');
    expect(events.map((e) => e.kind)).toContain('elicit.abandoned');
    clock.advance(200_000);
    expect((await broker.get(id))?.state).toBe('abandoned');
    void waiting;
  });

  it('refuses to abandon an answered question', async () => {
    make();
    const { id } = await broker.openRequest(question());
    await broker.respond({ id, action: 'decline', by: 'cli' });
    expect((await rejection(broker.abandon(id, 'gone'))).code).toBe('ELICITATION_ALREADY_ANSWERED');
  });

  it('says ELICITATION_NOT_FOUND for an unknown id', async () => {
    make();
    const error = await rejection(broker.respond({ id: 'elc-0000000000000000', action: 'cancel', by: 'cli' }));
    expect(error.code).toBe('ELICITATION_NOT_FOUND');
    expect(error.data).toEqual({ id: 'elc-0000000000000000' });
    expect((await rejection(broker.awaitAnswer('elc-0000000000000000'))).code).toBe('ELICITATION_NOT_FOUND');
    expect(await broker.get('elc-0000000000000000')).toBeUndefined();
  });

  it('refuses content that does not match the schema with the issues, and leaves the question pending', async () => {
    make();
    const { id } = await broker.openRequest(question());
    const error = await rejection(broker.respond({ id, action: 'accept', content: { repo: 42, extra: true }, by: 'cli' }));
    expect(error.code).toBe('ANSWER_INVALID');
    const issues = error.data?.issues as Array<{ field: string; expected: string }>;
    expect(issues.map((i) => i.field).sort()).toEqual(['extra', 'repo']);
    expect(issues.find((i) => i.field === 'repo')?.expected).toBe('string');
    expect((await broker.get(id))?.state).toBe('pending');
    expect(await broker.lookup(id)).toBeUndefined();
    expect((await broker.respond({ id, action: 'accept', content: { repo: 'ok' }, by: 'cli' })).content).toEqual({
      repo: 'ok',
      labels: 'bug',
    });
  });

  it('refuses content with decline and with a URL question', async () => {
    make();
    const form = await broker.openRequest(question());
    expect((await rejection(broker.respond({ id: form.id, action: 'decline', content: { repo: 'x' }, by: 'cli' }))).code).toBe(
      'ANSWER_INVALID',
    );
    const url = await broker.openRequest(
      question({ mode: 'url', url: 'https://example.com/connect', requestedSchema: undefined }),
    );
    expect((await rejection(broker.respond({ id: url.id, action: 'accept', content: { a: 1 }, by: 'cli' }))).code).toBe(
      'ANSWER_INVALID',
    );
    expect((await broker.respond({ id: url.id, action: 'accept', by: 'cli' })).action).toBe('accept');
  });

  it('wakes an in-process waiter at once, and an aborted wait rejects without answering', async () => {
    make();
    const { id } = await broker.openRequest(question());
    const controller = new AbortController();
    const aborted = broker.awaitAnswer(id, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort(new Error('caller gone'));
    expect(((await aborted) as Error).message).toBe('caller gone');
    expect((await broker.get(id))?.state).toBe('pending');
    const waiting = broker.awaitAnswer(id);
    await broker.respond({ id, action: 'accept', content: { repo: 'now' }, by: 'http' });
    expect(await waiting).toMatchObject({ action: 'accept', by: 'http' });
  });

  it('shows and answers only its own session unless allowed', async () => {
    make();
    const mine = await broker.openRequest(question());
    const shared = broker.store;
    const other = createBroker({ clock, session: 'sess-b', store: shared });
    const theirs = await other.openRequest(question({ tool: 'other_tool' }));
    expect((await broker.pending()).map((p) => p.id)).toEqual([mine.id]);
    expect(await broker.pending({ session: 'sess-b' })).toEqual([]);
    expect(await broker.get(theirs.id)).toBeUndefined();
    const forbidden = await rejection(broker.respond({ id: theirs.id, action: 'cancel', by: 'cli' }));
    expect(forbidden.code).toBe('ELICITATION_FORBIDDEN');
    const host = createBroker({ clock, allowAnySession: true, store: shared });
    expect((await host.pending()).map((p) => p.id).sort()).toEqual([mine.id, theirs.id].sort());
    expect((await host.pending({ session: 'sess-b' })).map((p) => p.id)).toEqual([theirs.id]);
    await host.respond({ id: theirs.id, action: 'cancel', by: 'http' });
    await other.close();
    await host.close();
  });

  it('lists pending questions by server, tool, trace and state, with time left', async () => {
    make({ ttlMs: 60_000 });
    const a = await broker.openRequest(question({ server: 'github', tool: 'a' }));
    clock.advance(10_000);
    const b = await broker.openRequest(question({ server: 'linear', tool: 'b', trace: 'cal-00000000000000b2' }));
    const c = await broker.openRequest(question({ server: 'linear', tool: 'c' }));
    await broker.respond({ id: c.id, action: 'decline', by: 'cli' });
    const listed = await broker.pending();
    expect(listed.map((p) => [p.id, p.timeLeftMs])).toEqual([
      [a.id, 50_000],
      [b.id, 60_000],
    ]);
    expect((await broker.pending({ server: 'linear' })).map((p) => p.id)).toEqual([b.id]);
    expect((await broker.pending({ tool: 'a' })).map((p) => p.id)).toEqual([a.id]);
    expect((await broker.pending({ trace: 'cal-00000000000000b2' })).map((p) => p.id)).toEqual([b.id]);
    expect((await broker.pending({ state: 'answered' })).map((p) => [p.id, p.timeLeftMs, p.state])).toEqual([
      [c.id, 60_000, 'answered'],
    ]);
    clock.advance(50_000);
    expect((await broker.pending({ state: ['expired', 'answered'] })).map((p) => [p.id, p.state])).toEqual([
      [a.id, 'expired'],
      [c.id, 'answered'],
    ]);
  });

  it('keeps an audit log queryable by session and by call, chaining a resumed call to the call that asked', async () => {
    make();
    const { id } = await broker.openRequest(question({ trace: 'cal-00000000000000d1' }));
    await broker.respond({ id, action: 'accept', content: { repo: 'x' }, by: 'cli' });
    await broker.recordResumed({ elicit: id, trace: 'cal-00000000000000e2', parent: 'cal-00000000000000d1' });
    await broker.openRequest(question({ trace: 'cal-00000000000000ff', session: 'sess-z' }));
    const chain = await broker.audit({ trace: 'cal-00000000000000d1' });
    expect(chain.map((e) => e.kind)).toEqual(['elicit.open', 'elicit.answered', 'elicit.resumed']);
    expect(chain[2]).toMatchObject({
      trace: 'cal-00000000000000e2',
      parent: 'cal-00000000000000d1',
      elicit: id,
      session: 'sess-a',
    });
    expect((await broker.audit({ session: 'sess-z' })).map((e) => e.kind)).toEqual(['elicit.open']);
    expect((await broker.audit({ elicit: id })).length).toBe(3);
    expect((await broker.audit({ limit: 1 })).map((e) => e.kind)).toEqual(['elicit.open']);
  });

  it('opens the same id twice idempotently', async () => {
    make();
    const first = await broker.openRequest(question({ id: 'elc-00000000000000aa' }));
    const again = await broker.openRequest(question({ id: 'elc-00000000000000aa', message: 'different' }));
    expect(again.message).toBe(first.message);
    expect(events.filter((e) => e.kind === 'elicit.open')).toHaveLength(1);
  });

  it('rejects waiters and refuses work once closed', async () => {
    make();
    const { id } = await broker.openRequest(question());
    const waiting = rejection(broker.awaitAnswer(id));
    await broker.close();
    expect((await waiting).code).toBe('BROKER_CLOSED');
    expect((await rejection(broker.openRequest(question()))).code).toBe('BROKER_CLOSED');
  });

  it('refuses a TTL that is not a positive number', () => {
    expect(() => make({ ttlMs: 0 })).toThrow(/time to live/);
  });
});

describe('resolveSession', () => {
  it('takes MCPX_SESSION_ID when the harness set it', () => {
    expect(resolveSession({ MCPX_SESSION_ID: 's876' }, { configPath: '/a/mcpx.json', cwd: '/w' })).toEqual({
      session: 's876',
      sessionSource: 'env',
    });
  });

  it('fingerprints the config and the working directory otherwise, and says so on the question', async () => {
    const binding = resolveSession({}, { configPath: '/a/mcpx.json', cwd: '/w' });
    expect(binding).toEqual({ session: expect.stringMatching(/^fp-[0-9a-f]{16}$/), sessionSource: 'fingerprint' });
    expect(resolveSession({}, { configPath: '/a/mcpx.json', cwd: '/w' })).toEqual(binding);
    expect(resolveSession({}, { configPath: '/a/mcpx.json', cwd: '/elsewhere' }).session).not.toBe(binding.session);
    const broker = createBroker({ session: binding, clock: createManualClock() });
    const request = await broker.openRequest({
      trace: 'cal-0000000000000001',
      server: 's',
      tool: 't',
      mode: 'form',
      message: 'm',
      era: 'modern',
    });
    expect(request).toMatchObject({ session: binding.session, sessionSource: 'fingerprint' });
    expect((await broker.audit({ elicit: request.id }))[0]?.data).toMatchObject({ sessionSource: 'fingerprint' });
    await broker.close();
  });
});

describe('systemClock', () => {
  it('does not fire a deadline weeks away at once', async () => {
    let fired = false;
    const handle = systemClock.setTimer(() => (fired = true), 40 * 24 * 60 * 60 * 1000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    systemClock.clearTimer(handle);
    expect(fired).toBe(false);
  });

  it('fires a short deadline', async () => {
    const fired = await new Promise<boolean>((resolve) => systemClock.setTimer(() => resolve(true), 5));
    expect(fired).toBe(true);
  });
});
