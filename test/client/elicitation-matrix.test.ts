/**
 * The elicitation matrix: {v1 legacy server, v2 server in legacy, v2 server in modern} x {stdio, Streamable HTTP},
 * every case asserting what the SERVER received (the fixtures echo it), decline and cancel apart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import type { Answer, Question } from '../../src/types.js';
import { FIXTURE_URL } from '../../examples/servers/dual-era.mjs';
import { fixtureEcho, startHttpFixture, stdioFixture, type FixtureKind, type HttpFixture } from '../helpers/fixture-servers.js';

type Wire = 'stdio' | 'http';
interface Target {
  label: string;
  kind: FixtureKind;
  era: 'auto' | 'legacy' | 'modern';
  expectedEra: 'legacy' | 'modern';
}

const targets: Target[] = [
  { label: 'v1 legacy server', kind: 'legacy-v1', era: 'auto', expectedEra: 'legacy' },
  { label: 'v2 server in legacy', kind: 'dual-era', era: 'legacy', expectedEra: 'legacy' },
  { label: 'v2 server in modern', kind: 'dual-era', era: 'auto', expectedEra: 'modern' },
];
const combos = targets.flatMap((t) =>
  (['stdio', 'http'] as Wire[]).map((wire) => ({ ...t, wire, name: `${t.label} over ${wire}` })),
);

const http = new Map<FixtureKind, HttpFixture>();
beforeAll(async () => {
  for (const kind of ['dual-era', 'legacy-v1'] as FixtureKind[]) http.set(kind, await startHttpFixture(kind));
}, 60_000);
afterAll(async () => {
  await Promise.all([...http.values()].map((h) => h.close()));
});

const ACCEPT_DETAILS = { repo: 'me/thing' };
const DETAILS_WITH_DEFAULTS = { repo: 'me/thing', private: false, priority: 'normal' };

describe.each(combos)('elicitation matrix: $name', ({ kind, era, wire, expectedEra }) => {
  let mcpx: Mcpx;
  const seen: Question[] = [];
  const opened: string[] = [];
  // Each test sets how the handler answers; undefined leaves the question unanswered here.
  let answer: (q: Question) => Answer | undefined = () => undefined;

  beforeAll(async () => {
    const entry = wire === 'stdio' ? { ...stdioFixture(kind), era } : { url: http.get(kind)!.url, era };
    mcpx = await createMcpx({
      config: { mcpServers: { fx: entry } },
      eraCache: createMemoryEraCache(),
      onElicit: async (q) => {
        seen.push(q);
        return answer(q);
      },
      openUrl: async (url) => {
        opened.push(url);
        return true;
      },
      env: { ...process.env, MCPX_STATE_DIR: '/nonexistent-state-dir' },
    });
    expect(await mcpx.era('fx')).toBe(expectedEra);
  }, 60_000);
  afterAll(async () => {
    await mcpx?.close();
  });

  async function complete(tool: string, args: Record<string, unknown> = {}) {
    const outcome = await mcpx.callTool('fx', tool, args);
    if (outcome.status !== 'complete') throw new Error(`expected complete, got ${JSON.stringify(outcome)}`);
    expect(outcome.result.isError).toBeFalsy();
    const echo = fixtureEcho(outcome.result);
    expect(echo.era).toBe(expectedEra);
    return echo;
  }

  it.each<[string, Answer, unknown]>([
    ['accept', { action: 'accept', content: ACCEPT_DETAILS }, { action: 'accept', content: DETAILS_WITH_DEFAULTS }],
    ['decline', { action: 'decline' }, { action: 'decline' }],
    ['cancel', { action: 'cancel' }, { action: 'cancel' }],
  ])('a form question answered %s reaches the server as %s', async (_name, given, received) => {
    seen.length = 0;
    answer = () => given;
    const echo = await complete('ask_form', { title: 'bug' });
    expect(echo.received.details).toEqual(received);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      server: 'fx',
      tool: 'ask_form',
      mode: 'form',
      era: expectedEra,
      message: 'Where should "bug" go?',
    });
    expect(seen[0]!.id).toMatch(/^elc-[0-9a-f]{16}$/);
    expect(seen[0]!.callId).toMatch(/^cal-[0-9a-f]{16}$/);
    expect(seen[0]!.requestedSchema?.required).toEqual(['repo']);
    if (expectedEra === 'modern') expect(seen[0]!.key).toBe('details');
  });

  it('opens the page of a url question and tells the server accept', async () => {
    seen.length = 0;
    opened.length = 0;
    answer = () => ({ action: 'accept' });
    const echo = await complete('ask_url');
    expect(echo.received.authorize).toEqual({ action: 'accept' });
    expect(seen[0]).toMatchObject({ mode: 'url', url: FIXTURE_URL });
    expect(opened).toEqual([FIXTURE_URL]);
  });

  it('answers two questions asked at once, each as given', async () => {
    seen.length = 0;
    answer = (q) => (q.requestedSchema?.properties.repo ? { action: 'accept', content: ACCEPT_DETAILS } : { action: 'decline' });
    const echo = await complete('ask_two');
    expect(echo.received).toEqual({
      details: { action: 'accept', content: DETAILS_WITH_DEFAULTS },
      confirm: { action: 'decline' },
    });
    expect(seen).toHaveLength(2);
  });

  it('answers two rounds, the second asked after the first is answered', async () => {
    seen.length = 0;
    answer = (q) =>
      q.requestedSchema?.properties.repo
        ? { action: 'accept', content: ACCEPT_DETAILS }
        : { action: 'accept', content: { confirm: true } };
    const echo = await complete('ask_rounds');
    expect(echo.rounds).toBe(2);
    expect(echo.received).toEqual({
      details: { action: 'accept', content: DETAILS_WITH_DEFAULTS },
      confirm: { action: 'accept', content: { confirm: true } },
    });
    expect(seen.map((q) => q.message)).toEqual(['Where should "the issue" go?', 'Create it in me/thing?']);
  });

  it('returns an unanswered question as input-required, then delivers a later cancel (not decline)', async () => {
    answer = () => undefined;
    const outcome = await mcpx.callTool('fx', 'ask_form', {});
    expect(outcome.status).toBe('input-required');
    if (outcome.status !== 'input-required') return;
    expect(outcome.questions).toHaveLength(1);
    const [question] = outcome.questions;
    let done;
    if (expectedEra === 'modern') {
      expect(outcome.live).toBeUndefined();
      expect(outcome.continuation?.questions.map((q) => q.id)).toEqual([question!.id]);
      done = await mcpx.resume(JSON.parse(JSON.stringify(outcome.continuation)), { [question!.id]: { action: 'cancel' } });
    } else {
      expect(outcome.continuation).toBeUndefined();
      expect(outcome.live!.expiresAt).toBeGreaterThan(Date.now());
      outcome.live!.respond(question!.id, { action: 'cancel' });
      done = await outcome.live!.result;
    }
    expect(done.status).toBe('complete');
    if (done.status === 'complete') expect(fixtureEcho(done.result).received.details).toEqual({ action: 'cancel' });
  });

  it('calls a tool that never asks without asking anything', async () => {
    seen.length = 0;
    const echo = await complete('no_ask', { text: 'hi' });
    expect(echo.text).toBe('hi');
    expect(seen).toHaveLength(0);
  });
});
