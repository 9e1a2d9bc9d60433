import { afterEach, describe, expect, it } from 'vitest';
import { createBroker, createManualClock, type StoreBroker } from '../../src/broker/index.js';
import { createElicitationPipeline, type Answerer } from '../../src/pipeline/pipeline.js';
import { createMemoryEraCache } from '../../src/client/index.js';
import { isMcpxError } from '../../src/errors.js';
import { newCallId, newElicitationId } from '../../src/ids.js';
import { createMcpx } from '../../src/mcpx.js';
import { parsePolicy } from '../../src/policy/index.js';
import type { Answer, ElicitContext, Question } from '../../src/types.js';
import { fixtureEcho, stdioFixture } from '../helpers/fixture-servers.js';

const question = (over: Partial<Question> = {}): Question => ({
  id: newElicitationId(),
  server: 'github',
  tool: 'create_issue',
  mode: 'form',
  message: 'Which repository?',
  era: 'legacy',
  callId: newCallId(),
  requestedSchema: { type: 'object', properties: { repo: { type: 'string', minLength: 3 } }, required: ['repo'] },
  ...over,
});

const context = (over: Partial<ElicitContext> = {}): ElicitContext => ({
  signal: new AbortController().signal,
  arguments: {},
  expiresAt: Date.now() + 60_000,
  ...over,
});

const answerer = (
  kind: Answerer['kind'],
  answer: (q: Question, ctx: ElicitContext) => Promise<unknown> | unknown,
  name?: string,
): Answerer => ({
  kind,
  name,
  answer: async (q, ctx) => (await answer(q, ctx)) as Answer | undefined,
});

describe('elicitation pipeline', () => {
  let broker: StoreBroker;
  afterEach(async () => {
    await broker?.close();
  });

  it('lets a matching rule answer, records the answer by policy and the rule that fired', async () => {
    broker = createBroker({ session: 's' });
    const policy = parsePolicy({
      rules: [{ match: { server: 'github', field: 'repo' }, answer: 'me/thing', because: 'CI repo' }],
    });
    const person = answerer('person', () => {
      throw new Error('a person must not be asked');
    });
    const handle = createElicitationPipeline({ broker, policy, answerers: [person] });
    const q = question();
    expect(await handle(q, context())).toEqual({ action: 'accept', content: { repo: 'me/thing' } });
    expect(await broker.lookup(q.id)).toMatchObject({ action: 'accept', by: 'policy' });
    const fired = (await broker.audit({ elicit: q.id })).find((e) => e.kind === 'policy.fired');
    expect(fired).toMatchObject({ rule: { index: 0, rule: { because: 'CI repo' } }, action: 'accept', trace: q.callId });
  });

  it('fails the call in error mode with ELICITATION_REFUSED, and the question is cancelled by policy', async () => {
    broker = createBroker({ session: 's' });
    const handle = createElicitationPipeline({ broker, policy: parsePolicy({ mode: 'error' }) });
    const q = question();
    const error = await handle(q, context()).catch((e: unknown) => e);
    expect(isMcpxError(error, 'ELICITATION_REFUSED')).toBe(true);
    expect((error as Error).message).toMatch(/github asked a question during create_issue/);
    expect(await broker.lookup(q.id)).toMatchObject({ action: 'cancel', by: 'policy' });
  });

  it('cancels what no rule matches in auto mode, and declines everything in decline mode', async () => {
    broker = createBroker({ session: 's' });
    expect(
      await createElicitationPipeline({
        broker,
        policy: parsePolicy({ mode: 'auto', rules: [{ match: { server: 'other' }, action: 'accept' }] }),
      })(question(), context()),
    ).toEqual({ action: 'cancel' });
    expect(await createElicitationPipeline({ broker, policy: parsePolicy({ mode: 'decline' }) })(question(), context())).toEqual({
      action: 'decline',
    });
  });

  it('passes a question on past answerers that throw, return garbage, answer wrongly or do not answer, logging why', async () => {
    broker = createBroker({ session: 's' });
    const handle = createElicitationPipeline({
      broker,
      answerers: [
        answerer(
          'script',
          () => {
            throw new Error('boom');
          },
          'thrower',
        ),
        answerer('script', () => ({ action: 'maybe' }), 'garbage'),
        answerer('script', () => ({ action: 'accept', content: { repo: 'x' } }), 'too short'),
        answerer('agent', () => undefined, 'silent'),
        answerer('person', () => ({ action: 'accept', content: { repo: 'me/repo' } })),
      ],
    });
    const q = question();
    expect(await handle(q, context())).toEqual({ action: 'accept', content: { repo: 'me/repo' } });
    expect(await broker.lookup(q.id)).toMatchObject({ by: 'person' });
    const reasons = (await broker.audit({ elicit: q.id }))
      .filter((e) => e.kind === 'elicit.passed')
      .map((e) => e.data?.reason as string);
    expect(reasons).toHaveLength(4);
    expect(reasons[0]).toBe('threw: boom');
    expect(reasons[1]).toMatch(/not an answer/);
    expect(reasons[2]).toMatch(/repo: expected at least 3 characters/);
    expect(reasons[3]).toBe('did not answer');
  });

  it('skips the agent when the server asks for a person', async () => {
    broker = createBroker({ session: 's' });
    const agentAsked: string[] = [];
    const handle = createElicitationPipeline({
      broker,
      answerers: [
        answerer('agent', (q) => (agentAsked.push(q.id), { action: 'accept', content: { repo: 'guess' } })),
        answerer('person', () => ({ action: 'decline' })),
      ],
    });
    const q = question({ meta: { 'io.mcpx/audience': 'user' } });
    expect(await handle(q, context())).toEqual({ action: 'decline' });
    expect(agentAsked).toEqual([]);
    expect((await broker.get(q.id))?.audience).toBe('user');
    // A hint toward the agent changes nothing: the agent is asked first, as configured.
    const hinted = question({ meta: { 'io.mcpx/audience': 'agent' } });
    expect(await handle(hinted, context())).toEqual({ action: 'accept', content: { repo: 'guess' } });
  });

  it("re-raises an agent's decline to the person", async () => {
    broker = createBroker({ session: 's' });
    const handle = createElicitationPipeline({
      broker,
      answerers: [
        answerer('agent', () => ({ action: 'decline' })),
        answerer('person', () => ({ action: 'accept', content: { repo: 'me/real' } })),
      ],
    });
    const q = question();
    expect(await handle(q, context())).toEqual({ action: 'accept', content: { repo: 'me/real' } });
    const passed = (await broker.audit({ elicit: q.id })).filter((e) => e.kind === 'elicit.passed');
    expect(passed.map((e) => e.data?.reason)).toEqual(['the agent declined; re-raised to the person']);
  });

  it('leaves the question pending in the broker when nobody answers', async () => {
    broker = createBroker({ session: 's' });
    const handle = createElicitationPipeline({ broker, answerers: [answerer('agent', () => ({ action: 'decline' }))] });
    const q = question();
    expect(await handle(q, context())).toBeUndefined();
    expect((await broker.pending()).map((p) => p.id)).toEqual([q.id]);
    expect(await broker.lookup(q.id)).toBeUndefined();
  });

  it('takes an answer given through the broker while a person is still thinking, and stops the person', async () => {
    broker = createBroker({ session: 's' });
    let personSignal: AbortSignal | undefined;
    const person = answerer('person', (_q, ctx) => {
      personSignal = ctx.signal;
      return new Promise(() => undefined);
    });
    const handle = createElicitationPipeline({ broker, answerers: [person] });
    const q = question();
    const answering = handle(q, context());
    while (!(await broker.get(q.id)) || !personSignal) await new Promise((resolve) => setImmediate(resolve));
    await broker.respond({ id: q.id, action: 'accept', content: { repo: 'from/cli' }, by: 'cli' });
    expect(await answering).toEqual({ action: 'accept', content: { repo: 'from/cli' } });
    expect(personSignal.aborted).toBe(true);
  });

  it('answers cancel when the deadline passes while a person is asked', async () => {
    const clock = createManualClock();
    broker = createBroker({ session: 's', clock });
    let asked = false;
    const handle = createElicitationPipeline({
      broker,
      clock,
      answerers: [answerer('person', () => ((asked = true), new Promise(() => undefined)))],
    });
    const q = question();
    const answering = handle(q, context({ expiresAt: clock.now() + 5_000 }));
    while (!asked) await new Promise((resolve) => setImmediate(resolve));
    clock.advance(5_000);
    expect(await answering).toEqual({ action: 'cancel' });
    expect(await broker.lookup(q.id)).toMatchObject({ by: 'expiry' });
  });

  it('is the onElicit of createMcpx: a real server gets the policy answer, and an unanswered question waits in the broker', async () => {
    broker = createBroker({ session: 's' });
    const policy = parsePolicy({ rules: [{ match: { tool: 'ask_form', field: 'repo' }, answer: 'me/thing' }] });
    const mcpx = await createMcpx({
      config: { mcpServers: { fx: stdioFixture('dual-era') } },
      eraCache: createMemoryEraCache(),
      onElicit: createElicitationPipeline({ broker, policy }),
      answerLater: true,
      env: { ...process.env, MCPX_STATE_DIR: '/nonexistent-state-dir' },
    });
    try {
      const done = await mcpx.callTool('fx', 'ask_form', { title: 'bug' });
      expect(done.status).toBe('complete');
      if (done.status !== 'complete') return;
      expect(fixtureEcho(done.result).received.details).toEqual({
        action: 'accept',
        content: { repo: 'me/thing', private: false, priority: 'normal' },
      });
      const fired = (await broker.audit({ trace: done.callId })).map((e) => e.kind);
      expect(fired).toEqual(['elicit.open', 'policy.fired', 'elicit.answered']);

      const waiting = await mcpx.callTool('fx', 'ask_confirm', { action: 'deploy' });
      expect(waiting.status).toBe('input-required');
      if (waiting.status !== 'input-required') return;
      const [asked] = waiting.questions;
      expect((await broker.pending()).map((p) => [p.id, p.server, p.tool, p.trace])).toEqual([
        [asked!.id, 'fx', 'ask_confirm', waiting.callId],
      ]);
    } finally {
      await mcpx.close();
    }
  }, 60_000);
});
