/**
 * The elicitation seam's promises, checked on the wire (in-memory fixtures, tapped): honest capabilities, url mode
 * only with openUrl, invalid content never sent, deadlines, refusals, and the SEP-2322 retry rules.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpx, type Mcpx, type McpxOptions } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { McpxError, isMcpxError } from '../../src/errors.js';
import type { Answer } from '../../src/types.js';
import { fixtureEcho, inMemoryServer, type FixtureKind } from '../helpers/fixture-servers.js';

type Era = 'legacy' | 'modern';
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function setup(
  kind: FixtureKind,
  era: 'auto' | 'legacy' | 'modern',
  options: Omit<McpxOptions, 'servers'> = {},
): Promise<{ mcpx: Mcpx; sent: Array<Record<string, any>> }> {
  const server = inMemoryServer(kind, era);
  const mcpx = await createMcpx({
    config: { mcpServers: {} },
    eraCache: createMemoryEraCache(),
    ...options,
    servers: { fx: server.connector },
  });
  closers.push(async () => {
    await mcpx.close();
    await server.close();
  });
  return { mcpx, sent: server.sent };
}

const requestsOf = (sent: Array<Record<string, any>>, method: string) => sent.filter((m) => m.method === method);
const responses = (sent: Array<Record<string, any>>) => sent.filter((m) => m.method === undefined && 'result' in m);

/** The capabilities a connection declared: modern per request in _meta, legacy in initialize. */
async function declaredCapabilities(mcpx: Mcpx, sent: Array<Record<string, any>>, era: Era): Promise<Record<string, unknown>> {
  await mcpx.listTools('fx');
  if (era === 'modern') return requestsOf(sent, 'tools/list')[0]!.params._meta['io.modelcontextprotocol/clientCapabilities'];
  return requestsOf(sent, 'initialize')[0]!.params.capabilities;
}

const accept = async (): Promise<Answer> => ({ action: 'accept', content: { repo: 'me/thing' } });

describe('client capabilities', () => {
  it.each<['legacy' | 'modern', 'legacy' | 'auto']>([
    ['legacy', 'legacy'],
    ['modern', 'auto'],
  ])('are honest in the %s era', async (era, setting) => {
    const none = await setup('dual-era', setting);
    expect(await declaredCapabilities(none.mcpx, none.sent, era)).toEqual({});
    const formOnly = await setup('dual-era', setting, { onElicit: accept });
    expect(await declaredCapabilities(formOnly.mcpx, formOnly.sent, era)).toEqual({
      elicitation: { form: { applyDefaults: true } },
    });
    const later = await setup('dual-era', setting, { answerLater: true });
    expect(await declaredCapabilities(later.mcpx, later.sent, era)).toEqual({ elicitation: { form: { applyDefaults: true } } });
    const withUrl = await setup('dual-era', setting, { onElicit: accept, openUrl: async () => true });
    expect(await declaredCapabilities(withUrl.mcpx, withUrl.sent, era)).toEqual({
      elicitation: { form: { applyDefaults: true }, url: {} },
    });
  });

  it('puts protocol version, client info and capabilities in every modern request', async () => {
    const { mcpx, sent } = await setup('dual-era', 'auto', {
      onElicit: accept,
      clientInfo: { name: 'seam-test', version: '9.9.9' },
    });
    await mcpx.callTool('fx', 'no_ask', {});
    for (const request of sent.filter((m) => typeof m.method === 'string' && 'id' in m)) {
      expect(request.params._meta).toMatchObject({
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'seam-test', version: '9.9.9' },
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: { applyDefaults: true } } },
      });
    }
  });
});

describe('url mode without openUrl', () => {
  it.each<[FixtureKind, 'legacy' | 'auto']>([
    ['legacy-v1', 'auto'],
    ['dual-era', 'legacy'],
    ['dual-era', 'auto'],
  ])('is never declared nor accepted (%s, %s)', async (kind, setting) => {
    const asked: string[] = [];
    const { mcpx, sent } = await setup(kind, setting, {
      onElicit: async (q) => {
        asked.push(q.mode);
        return { action: 'accept' };
      },
    });
    const outcome = await mcpx.callTool('fx', 'ask_url', {}).catch((error: unknown) => error);
    // The server learns the client cannot do url mode: a tool error (legacy) or a -32021 refusal (modern).
    if (setting === 'auto' && kind === 'dual-era') {
      expect(outcome).toMatchObject({ code: 'CALL_FAILED', data: { code: -32021 } });
    } else {
      expect(outcome).toMatchObject({ status: 'complete', result: { isError: true } });
    }
    expect(asked).toEqual([]);
    expect(responses(sent).filter((m) => m.result?.action === 'accept')).toEqual([]);
    expect(JSON.stringify(sent)).not.toContain('"inputResponses"');
  });
});

describe('url mode with openUrl', () => {
  it.each<[FixtureKind, 'legacy' | 'auto']>([
    ['legacy-v1', 'auto'],
    ['dual-era', 'auto'],
  ])('sends cancel, not accept, when the page could not be opened (%s, %s)', async (kind, setting) => {
    const { mcpx } = await setup(kind, setting, { onElicit: async () => ({ action: 'accept' }), openUrl: async () => false });
    const outcome = await mcpx.callTool('fx', 'ask_url', {});
    expect(outcome.status === 'complete' && fixtureEcho(outcome.result).received.authorize).toEqual({ action: 'cancel' });
  });
});

describe('invalid accept content', () => {
  it.each<[FixtureKind, 'legacy' | 'auto']>([
    ['legacy-v1', 'auto'],
    ['dual-era', 'legacy'],
    ['dual-era', 'auto'],
  ])('from a handler is refused naming the field and never sent (%s, %s)', async (kind, setting) => {
    const { mcpx, sent } = await setup(kind, setting, { onElicit: async () => ({ action: 'accept', content: { repo: 42 } }) });
    const error = await mcpx.callTool('fx', 'ask_form', {}).catch((e: unknown) => e);
    expect(isMcpxError(error, 'ANSWER_INVALID')).toBe(true);
    expect((error as McpxError).message).toContain('repo');
    expect((error as McpxError).data?.issues).toEqual([expect.objectContaining({ field: 'repo', expected: 'string' })]);
    expect(JSON.stringify(sent)).not.toContain('"repo":42');
  });

  it('through a LiveCall is refused and the question stays open for a good answer', async () => {
    const { mcpx, sent } = await setup('legacy-v1', 'auto', { answerLater: true });
    const outcome = await mcpx.callTool('fx', 'ask_form', {});
    if (outcome.status !== 'input-required' || !outcome.live) throw new Error('expected a live input-required outcome');
    const id = outcome.questions[0]!.id;
    expect(() => outcome.live!.respond(id, { action: 'accept', content: { repo: 'x', color: 'red' } })).toThrow(/color/);
    let refusal: unknown;
    try {
      outcome.live.respond(id, { action: 'accept', content: { repo: 'x' } });
    } catch (error) {
      refusal = error;
    }
    expect(isMcpxError(refusal, 'ANSWER_INVALID')).toBe(true);
    expect((refusal as McpxError).data?.issues).toEqual([
      expect.objectContaining({ field: 'repo', expected: 'at least 3 characters' }),
    ]);
    outcome.live.respond(id, { action: 'accept', content: { repo: 'me/thing', priority: 'high' } });
    const done = await outcome.live.result;
    expect(done.status === 'complete' && fixtureEcho(done.result).received.details).toEqual({
      action: 'accept',
      content: { repo: 'me/thing', private: false, priority: 'high' },
    });
    expect(JSON.stringify(sent)).not.toContain('"color"');
    expect(() => outcome.live!.respond(id, { action: 'decline' })).toThrow(McpxError);
  });

  it('in resume answers is refused before anything is sent', async () => {
    const { mcpx, sent } = await setup('dual-era', 'auto', { answerLater: true });
    const outcome = await mcpx.callTool('fx', 'ask_form', {});
    if (outcome.status !== 'input-required' || !outcome.continuation) throw new Error('expected a continuation');
    const before = sent.length;
    const id = outcome.questions[0]!.id;
    await expect(
      mcpx.resume(outcome.continuation, { [id]: { action: 'accept', content: { priority: 'urgent' } } }),
    ).rejects.toMatchObject({ code: 'ANSWER_INVALID' });
    await expect(mcpx.resume(outcome.continuation, {})).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
      data: { missing: [id] },
    });
    await expect(mcpx.resume(outcome.continuation, { 'elc-0000000000000000': { action: 'cancel' } })).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
    });
    expect(sent.length).toBe(before);
  });
});

describe('legacy calls held open', () => {
  it('answer cancel at the question deadline, and never time out while it waits', async () => {
    // The server may stay silent 150 ms; the question waits 600 ms: the call must survive on the deadline alone.
    const { mcpx, sent } = await setup('legacy-v1', 'auto', { answerLater: true, elicitTtlMs: 600, requestTimeoutMs: 150 });
    const outcome = await mcpx.callTool('fx', 'ask_form', {});
    if (outcome.status !== 'input-required' || !outcome.live) throw new Error('expected a live input-required outcome');
    const started = Date.now();
    const done = await outcome.live.result;
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(done.status === 'complete' && fixtureEcho(done.result).received.details).toEqual({ action: 'cancel' });
    expect(responses(sent).map((m) => m.result)).toContainEqual({ action: 'cancel' });
  });

  it('end when the caller aborts: the waiting question is answered cancel and the result rejects', async () => {
    const { mcpx, sent } = await setup('legacy-v1', 'auto', { answerLater: true });
    const abort = new AbortController();
    const outcome = await mcpx.callTool('fx', 'ask_form', {}, { signal: abort.signal });
    if (outcome.status !== 'input-required' || !outcome.live) throw new Error('expected a live input-required outcome');
    const result = outcome.live.result;
    abort.abort();
    await expect(result).rejects.toMatchObject({ code: 'CALL_FAILED', message: expect.stringContaining('aborted') });
    expect(responses(sent).map((m) => m.result)).toContainEqual({ action: 'cancel' });
    expect(sent.some((m) => m.method === 'notifications/cancelled')).toBe(true);
  });

  it('report the next round as a new input-required outcome', async () => {
    const { mcpx } = await setup('dual-era', 'legacy', { answerLater: true });
    const first = await mcpx.callTool('fx', 'ask_rounds', {});
    if (first.status !== 'input-required' || !first.live) throw new Error('expected a live input-required outcome');
    first.live.respond(first.questions[0]!.id, { action: 'accept', content: { repo: 'me/thing' } });
    const second = await first.live.result;
    if (second.status !== 'input-required' || !second.live) throw new Error('expected the second round');
    expect(second.questions.map((q) => q.message)).toEqual(['Create it in me/thing?']);
    expect(second.callId).toBe(first.callId);
    second.live.respond(second.questions[0]!.id, { action: 'decline' });
    const done = await second.live.result;
    expect(done.status === 'complete' && fixtureEcho(done.result).received).toEqual({
      details: { action: 'accept', content: { repo: 'me/thing', private: false, priority: 'normal' } },
      confirm: { action: 'decline' },
    });
  });

  it('reports two questions asked at once in one outcome', async () => {
    const { mcpx } = await setup('legacy-v1', 'auto', { answerLater: true });
    const outcome = await mcpx.callTool('fx', 'ask_two', {});
    if (outcome.status !== 'input-required' || !outcome.live) throw new Error('expected a live input-required outcome');
    expect(outcome.questions.map((q) => q.message).sort()).toEqual(['Notify the watchers?', 'Where should "the issue" go?']);
    for (const q of outcome.questions) outcome.live.respond(q.id, { action: 'cancel' });
    const done = await outcome.live.result;
    expect(done.status === 'complete' && fixtureEcho(done.result).received).toEqual({
      details: { action: 'cancel' },
      confirm: { action: 'cancel' },
    });
  });
});

describe('a handler that never answers', () => {
  it.each<[FixtureKind, 'legacy' | 'auto']>([
    ['legacy-v1', 'auto'],
    ['dual-era', 'legacy'],
    ['dual-era', 'auto'],
  ])('is cut off at the deadline: the server receives cancel and the handler is aborted (%s, %s)', async (kind, setting) => {
    const signals: AbortSignal[] = [];
    const { mcpx } = await setup(kind, setting, {
      elicitTtlMs: 300,
      onElicit: (_q, ctx) => {
        signals.push(ctx.signal);
        return new Promise(() => undefined);
      },
    });
    const outcome = await mcpx.callTool('fx', 'ask_form', {});
    expect(outcome.status === 'complete' && fixtureEcho(outcome.result).received.details).toEqual({ action: 'cancel' });
    expect(signals.map((s) => s.aborted)).toEqual([true]);
  });

  it('may fail after its deadline without failing the held call', async () => {
    const { mcpx } = await setup('legacy-v1', 'auto', {
      elicitTtlMs: 200,
      onElicit: (_q, ctx) =>
        new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    const outcome = await mcpx.callTool('fx', 'ask_rounds', {});
    expect(outcome.status === 'complete' && fixtureEcho(outcome.result).received).toEqual({ details: { action: 'cancel' } });
  });
});

describe("a modern handler's signal", () => {
  it('is live while the handler runs, aborted once it answered, and aborted when first read after', async () => {
    const seen: Array<{ whileAsked: boolean; signal: AbortSignal; late: () => AbortSignal }> = [];
    const { mcpx } = await setup('dual-era', 'auto', {
      onElicit: async (_q, ctx) => {
        seen.push({ whileAsked: ctx.signal.aborted, signal: ctx.signal, late: () => ctx.signal });
        return { action: 'accept', content: { repo: 'me/thing' } };
      },
    });
    const outcome = await mcpx.callTool('fx', 'ask_form', {});
    expect(outcome.status).toBe('complete');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.whileAsked).toBe(false);
    expect(seen[0]!.signal.aborted).toBe(true);
    expect(seen[0]!.late()).toBe(seen[0]!.signal);
  });

  it('read only after the handler returned is already aborted, with an AbortError', async () => {
    let kept: { signal: AbortSignal } | undefined;
    const { mcpx } = await setup('dual-era', 'auto', {
      onElicit: async (_q, ctx) => {
        kept = ctx;
        return undefined;
      },
    });
    const outcome = await mcpx.callTool('fx', 'ask_form', {});
    expect(outcome.status).toBe('input-required');
    expect(kept!.signal.aborted).toBe(true);
    expect(kept!.signal.reason).toMatchObject({ name: 'AbortError' });
  });
});

describe('a handler that refuses', () => {
  it.each<[FixtureKind, 'legacy' | 'auto']>([
    ['legacy-v1', 'auto'],
    ['dual-era', 'auto'],
  ])('fails the call with ELICITATION_REFUSED (%s, %s)', async (kind, setting) => {
    const { mcpx, sent } = await setup(kind, setting, {
      onElicit: async () => {
        throw new McpxError('ELICITATION_REFUSED', 'policy says no');
      },
    });
    await expect(mcpx.callTool('fx', 'ask_form', {})).rejects.toMatchObject({ code: 'ELICITATION_REFUSED' });
    expect(responses(sent).filter((m) => m.result?.action === 'accept')).toEqual([]);
  });
});

describe('modern retries (SEP-2322)', () => {
  it('echo requestState byte-exact with a new JSON-RPC id, and add none when none was given', async () => {
    const { mcpx, sent } = await setup('dual-era', 'auto', {
      onElicit: async (q) =>
        q.key === 'confirm'
          ? { action: 'accept', content: { confirm: true } }
          : { action: 'accept', content: { repo: 'me/thing' } },
    });
    await mcpx.callTool('fx', 'ask_form', {});
    await mcpx.callTool('fx', 'no_ask', {});
    await mcpx.callTool('fx', 'ask_confirm', {});
    const calls = requestsOf(sent, 'tools/call');
    expect(calls.map((c) => c.params.name)).toEqual(['ask_form', 'ask_form', 'no_ask', 'ask_confirm', 'ask_confirm']);
    expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
    expect(calls[0]!.params.requestState).toBeUndefined();
    expect(calls[1]!.params.requestState).toMatch(/^v1\./);
    expect(calls[1]!.params.inputResponses).toEqual({
      details: { action: 'accept', content: { repo: 'me/thing', private: false, priority: 'normal' } },
    });
    // An unrelated call carries nothing from the flow before it.
    expect(calls[2]!.params).not.toHaveProperty('inputResponses');
    expect(calls[2]!.params).not.toHaveProperty('requestState');
    expect(calls[4]!.params).not.toHaveProperty('requestState');
    expect(calls[4]!.params.inputResponses).toEqual({ confirm: { action: 'accept', content: { confirm: true } } });
  });

  it('give CONTINUATION_STALE for a tampered requestState', async () => {
    const { mcpx } = await setup('dual-era', 'auto', { answerLater: true });
    const outcome = await mcpx.callTool('fx', 'ask_form', {});
    if (outcome.status !== 'input-required' || !outcome.continuation) throw new Error('expected a continuation');
    const tampered = { ...outcome.continuation, requestState: `${outcome.continuation.requestState}x` };
    const id = outcome.questions[0]!.id;
    await expect(mcpx.resume(tampered, { [id]: { action: 'decline' } })).rejects.toMatchObject({ code: 'CONTINUATION_STALE' });
  });

  it('refuse a continuation that is not one with CONTINUATION_INVALID naming the field', async () => {
    const { mcpx } = await setup('dual-era', 'auto', { answerLater: true });
    await expect(mcpx.resume({ version: 1, server: 'fx' }, {})).rejects.toMatchObject({
      code: 'CONTINUATION_INVALID',
      message: expect.stringContaining('tool'),
    });
  });

  it('keep answers a handler gave when another question of the round waits', async () => {
    const { mcpx, sent } = await setup('dual-era', 'auto', {
      onElicit: async (q) => (q.key === 'details' ? { action: 'accept', content: { repo: 'me/thing' } } : undefined),
    });
    const outcome = await mcpx.callTool('fx', 'ask_two', {});
    if (outcome.status !== 'input-required' || !outcome.continuation) throw new Error('expected a continuation');
    expect(outcome.questions.map((q) => q.key)).toEqual(['confirm']);
    const done = await mcpx.resume(outcome.continuation, { [outcome.questions[0]!.id]: { action: 'decline' } });
    expect(done.status === 'complete' && fixtureEcho(done.result).received).toEqual({
      details: { action: 'accept', content: { repo: 'me/thing', private: false, priority: 'normal' } },
      confirm: { action: 'decline' },
    });
    expect(requestsOf(sent, 'tools/call')).toHaveLength(2);
  });
});

describe('request timeouts', () => {
  it.each<[FixtureKind, 'legacy' | 'auto']>([
    ['legacy-v1', 'auto'],
    ['dual-era', 'auto'],
  ])("use the server's timeoutMs while it works (%s, %s)", async (kind, setting) => {
    const server = inMemoryServer(kind, setting);
    const mcpx = await createMcpx({
      config: { mcpServers: {} },
      eraCache: createMemoryEraCache(),
      servers: { fx: { ...server.connector, timeoutMs: 100 } },
    });
    closers.push(async () => {
      await mcpx.close();
      await server.close();
    });
    await expect(mcpx.callTool('fx', 'sleep', { ms: 3000 })).rejects.toMatchObject({ code: 'CALL_FAILED' });
    const quick = await mcpx.callTool('fx', 'sleep', { ms: 0 });
    expect(quick.status === 'complete' && fixtureEcho(quick.result).text).toBe('slept 0 ms');
  });
});

describe('legacy progress', () => {
  it("keeps a working call alive: progress on the call's own token resets the watchdog", async () => {
    const server = inMemoryServer('legacy-v1', 'auto');
    const mcpx = await createMcpx({
      config: { mcpServers: {} },
      eraCache: createMemoryEraCache(),
      servers: { fx: { ...server.connector, timeoutMs: 300 } },
    });
    closers.push(async () => {
      await mcpx.close();
      await server.close();
    });
    const outcome = await mcpx.callTool('fx', 'sleep', { ms: 1200, progressEveryMs: 50 });
    expect(outcome.status === 'complete' && fixtureEcho(outcome.result).text).toBe('slept 1200 ms');
    await expect(mcpx.callTool('fx', 'sleep', { ms: 1200 })).rejects.toMatchObject({
      code: 'CALL_FAILED',
      message: expect.stringContaining('300 ms'),
    });
  });
});

describe('createMcpx', () => {
  it('names the known servers when one is missing', async () => {
    const { mcpx } = await setup('dual-era', 'auto');
    expect(mcpx.serverNames()).toEqual(['fx']);
    await expect(mcpx.callTool('nope', 'x', {})).rejects.toMatchObject({
      code: 'SERVER_NOT_FOUND',
      message: expect.stringContaining('fx'),
    });
  });

  it('returns a tool error as a complete outcome', async () => {
    const { mcpx } = await setup('dual-era', 'auto');
    const outcome = await mcpx.callTool('fx', 'no_ask', { text: 42 });
    expect(outcome.status).toBe('complete');
    expect(outcome.status === 'complete' && outcome.result.isError).toBe(true);
  });
});
