/**
 * Which call a legacy question belongs to when several calls share a connection: tied by the wire where it says
 * (the call's HTTP response stream, the call's progress token named in the question), marked ambiguous with the
 * candidate calls where it does not.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import type { CallOutcome, InputRequiredOutcome } from '../../src/client/outcome.js';
import { fixtureEcho, inMemoryServer, startHttpFixture, type FixtureKind } from '../helpers/fixture-servers.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function inMemory(
  kind: FixtureKind,
  era: 'auto' | 'legacy',
  link: string[] = [],
): Promise<{ mcpx: Mcpx; sent: Array<Record<string, any>> }> {
  const server = inMemoryServer(kind, era, { link });
  const mcpx = await createMcpx({
    config: { mcpServers: {} },
    eraCache: createMemoryEraCache(),
    answerLater: true,
    servers: { fx: server.connector },
  });
  closers.push(async () => {
    await mcpx.close();
    await server.close();
  });
  return { mcpx, sent: server.sent };
}

async function overHttp(kind: FixtureKind, era: 'auto' | 'legacy', env: Record<string, string> = {}): Promise<Mcpx> {
  const fixture = await startHttpFixture(kind, env);
  const mcpx = await createMcpx({
    config: { mcpServers: { fx: { url: fixture.url, era } } },
    env: { ...process.env, MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-state-')) },
    eraCache: createMemoryEraCache(),
    answerLater: true,
  });
  closers.push(async () => {
    await mcpx.close();
    await fixture.close();
  });
  return mcpx;
}

function waiting(outcome: CallOutcome): InputRequiredOutcome & { live: NonNullable<InputRequiredOutcome['live']> } {
  if (outcome.status !== 'input-required' || !outcome.live)
    throw new Error(`expected a live input-required outcome, got ${JSON.stringify(outcome)}`);
  return outcome as InputRequiredOutcome & { live: NonNullable<InputRequiredOutcome['live']> };
}

/** Call A works (sleep) while call B asks: the oldest open call not yet asking is A, so only a link names B. */
async function sleeperAndAsker(
  mcpx: Mcpx,
  aSignal?: AbortSignal,
): Promise<{ a: Promise<CallOutcome>; aId: string; b: Promise<CallOutcome>; bId: string }> {
  const aId = 'cal-aaaaaaaaaaaaaaaa';
  const bId = 'cal-bbbbbbbbbbbbbbbb';
  const a = mcpx.callTool('fx', 'sleep', { ms: 1500 }, { callId: aId, ...(aSignal ? { signal: aSignal } : {}) });
  // Let A's request reach the server first.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const b = mcpx.callTool('fx', 'ask_confirm', {}, { callId: bId });
  return { a, aId, b, bId };
}

async function expectLinked(mcpx: Mcpx): Promise<void> {
  const { a, b, bId } = await sleeperAndAsker(mcpx);
  const asked = waiting(await b);
  expect(asked.questions).toHaveLength(1);
  expect(asked.questions[0]).toMatchObject({ callId: bId, message: 'Really proceed?' });
  expect(asked.questions[0]!.ambiguous).toBeUndefined();
  expect(asked.questions[0]!.candidateCalls).toBeUndefined();
  asked.live.respond(asked.questions[0]!.id, { action: 'accept', content: { confirm: true } });
  const done = await asked.live.result;
  expect(done.status === 'complete' && fixtureEcho(done.result).received.confirm).toEqual({
    action: 'accept',
    content: { confirm: true },
  });
  expect((await a).status).toBe('complete');
}

/** B, once the guess A ended, holds the guessed question, still marked ambiguous; B's answer completes B. */
async function expectInherited(b: Promise<CallOutcome>, id: string, bId: string): Promise<void> {
  const inherited = waiting(await b);
  expect(inherited.questions.map((q) => [q.id, q.callId, q.ambiguous])).toEqual([[id, bId, true]]);
  inherited.live.respond(id, { action: 'accept', content: { confirm: true } });
  const doneB = await inherited.live.result;
  expect(doneB.status === 'complete' && fixtureEcho(doneB.result).received.confirm).toEqual({
    action: 'accept',
    content: { confirm: true },
  });
}

describe('legacy question attribution', () => {
  it.each<[FixtureKind, 'auto' | 'legacy']>([
    ['legacy-v1', 'auto'],
    ['dual-era', 'legacy'],
  ])('marks a question ambiguous with the candidate calls when the wire does not say which asked (%s, %s)', async (kind, era) => {
    const { mcpx, sent } = await inMemory(kind, era);
    const first = waiting(await mcpx.callTool('fx', 'ask_form', {}));
    // One call open: no doubt.
    expect(first.questions[0]!.ambiguous).toBeUndefined();
    const second = waiting(await mcpx.callTool('fx', 'ask_confirm', {}));
    expect(second.questions).toHaveLength(1);
    expect(second.questions[0]).toMatchObject({
      message: 'Really proceed?',
      ambiguous: true,
      candidateCalls: [first.callId, second.callId],
    });
    // The call already waiting on a question is not the likely asker: the new question went to the new call.
    expect(second.questions[0]!.callId).toBe(second.callId);
    second.live.respond(second.questions[0]!.id, { action: 'decline' });
    first.live.respond(first.questions[0]!.id, { action: 'cancel' });
    const [doneFirst, doneSecond] = await Promise.all([first.live.result, second.live.result]);
    expect(doneFirst.status === 'complete' && fixtureEcho(doneFirst.result).received).toEqual({ details: { action: 'cancel' } });
    expect(doneSecond.status === 'complete' && fixtureEcho(doneSecond.result).received).toEqual({
      confirm: { action: 'decline' },
    });
    // Every legacy tools/call carries a progress token of mcpx's own (a string, never the server's numbering).
    const tokens = sent.filter((m) => m.method === 'tools/call').map((m) => m.params._meta?.progressToken);
    expect(tokens).toEqual([expect.stringMatching(/^cal-[0-9a-f]{16}\//), expect.stringMatching(/^cal-[0-9a-f]{16}\//)]);
    expect(new Set(tokens).size).toBe(2);
  });

  it('still delivers the question, to a guess marked ambiguous, when it cannot be tied', async () => {
    const { mcpx } = await inMemory('legacy-v1', 'auto');
    const { a, aId, b, bId } = await sleeperAndAsker(mcpx);
    // The oldest call not asking is A: it gets the question, marked, naming B as a candidate.
    const guessed = waiting(await a);
    expect(guessed.questions[0]).toMatchObject({ callId: aId, ambiguous: true, candidateCalls: [aId, bId] });
    guessed.live.respond(guessed.questions[0]!.id, { action: 'accept', content: { confirm: false } });
    const doneB = await b;
    expect(doneB.status === 'complete' && fixtureEcho(doneB.result).received.confirm).toEqual({
      action: 'accept',
      content: { confirm: false },
    });
    expect((await guessed.live.result).status).toBe('complete');
  });

  it('hands a guessed question to the other call it may belong to when the guess ends first, never cancelling it', async () => {
    const { mcpx } = await inMemory('legacy-v1', 'auto');
    const { a, aId, b, bId } = await sleeperAndAsker(mcpx);
    const guessed = waiting(await a);
    const id = guessed.questions[0]!.id;
    expect(guessed.questions[0]).toMatchObject({ callId: aId, ambiguous: true, candidateCalls: [aId, bId] });
    // A ends (its sleep is over) with the question unanswered: the server ended A, so the question was B's.
    expect((await guessed.live.result).status).toBe('complete');
    await expectInherited(b, id, bId);
  });

  it('hands a guessed question to the other call when the guess is aborted, never cancelling it', async () => {
    const { mcpx } = await inMemory('legacy-v1', 'auto');
    const abortA = new AbortController();
    const { a, aId, b, bId } = await sleeperAndAsker(mcpx, abortA.signal);
    const guessed = waiting(await a);
    const id = guessed.questions[0]!.id;
    expect(guessed.questions[0]).toMatchObject({ callId: aId, ambiguous: true, candidateCalls: [aId, bId] });
    // A's caller gives up on it: the question may be B's, still open, so B gets it rather than a cancel.
    abortA.abort();
    await expect(guessed.live.result).rejects.toMatchObject({ code: 'CALL_FAILED' });
    await expectInherited(b, id, bId);
  });

  it('ties a question to the call whose progress token it names (stdio-like wire)', async () => {
    const { mcpx } = await inMemory('legacy-v1', 'auto', ['token']);
    await expectLinked(mcpx);
  });

  it.each<[FixtureKind, 'auto' | 'legacy', Record<string, string>]>([
    ['dual-era', 'legacy', {}],
    ['legacy-v1', 'auto', { MCPX_FIXTURE_LINK: 'stream' }],
  ])('ties a question to the call whose HTTP response stream carried it (%s, %s)', async (kind, era, env) => {
    const mcpx = await overHttp(kind, era, env);
    await expectLinked(mcpx);
  });
});
