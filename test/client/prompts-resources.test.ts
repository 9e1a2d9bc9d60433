/**
 * Prompts and resources through the same seam as tool calls: listed, read, and asking questions in both eras
 * (legacy: `elicitation/create` while the request is open; modern: `input_required` on prompts/get and
 * resources/read), answered now by the handler or later (modern: a continuation resumed by another instance;
 * legacy: the live call). Every case asserts what the SERVER received (the fixtures echo it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import type { Answer, Question } from '../../src/types.js';
import { startHttpFixture, stdioFixture, type FixtureKind, type HttpFixture } from '../helpers/fixture-servers.js';

const env = { ...process.env, MCPX_STATE_DIR: '/nonexistent-state-dir' };

function promptEcho(result: GetPromptResult): Record<string, unknown> {
  const first = result.messages[0]?.content;
  if (!first || first.type !== 'text') throw new Error(`expected a text message, got ${JSON.stringify(result)}`);
  return JSON.parse(first.text) as Record<string, unknown>;
}

function resourceEcho(result: ReadResourceResult): Record<string, unknown> {
  const first = result.contents[0];
  if (!first || !('text' in first)) throw new Error(`expected text contents, got ${JSON.stringify(result)}`);
  return JSON.parse(first.text) as Record<string, unknown>;
}

const targets: { label: string; kind: FixtureKind; era: 'legacy' | 'modern'; wire: 'stdio' | 'http' }[] = [
  { label: 'v1 legacy server over stdio', kind: 'legacy-v1', era: 'legacy', wire: 'stdio' },
  { label: 'v2 server in modern over stdio', kind: 'dual-era', era: 'modern', wire: 'stdio' },
  { label: 'v2 server in legacy over http', kind: 'dual-era', era: 'legacy', wire: 'http' },
  { label: 'v2 server in modern over http', kind: 'dual-era', era: 'modern', wire: 'http' },
];

const http = new Map<FixtureKind, HttpFixture>();
beforeAll(async () => {
  http.set('dual-era', await startHttpFixture('dual-era'));
}, 60_000);
afterAll(async () => {
  await Promise.all([...http.values()].map((h) => h.close()));
});

describe.each(targets)('prompts and resources: $label', ({ kind, era, wire }) => {
  let mcpx: Mcpx;
  const seen: Question[] = [];
  let answer: (q: Question) => Answer | undefined = () => undefined;
  const entry = (): Record<string, unknown> => {
    const setting = kind === 'dual-era' && era === 'legacy' ? 'legacy' : 'auto';
    return wire === 'stdio' ? { ...stdioFixture(kind), era: setting } : { url: http.get(kind)!.url, era: setting };
  };

  beforeAll(async () => {
    mcpx = await createMcpx({
      config: { mcpServers: { fx: entry() as never } },
      eraCache: createMemoryEraCache(),
      onElicit: async (q) => {
        seen.push(q);
        return answer(q);
      },
      env,
    });
    expect(await mcpx.era('fx')).toBe(era);
  }, 60_000);
  afterAll(async () => {
    await mcpx?.close();
  });

  it('lists the prompts and resources', async () => {
    expect((await mcpx.listPrompts('fx')).map((p) => p.name)).toContain('ask_prompt');
    expect((await mcpx.listResources('fx')).map((r) => r.uri)).toContain('mcpx-fixture://ask');
  });

  it('gets a prompt whose question the handler answers accept, with defaults filled', async () => {
    seen.length = 0;
    answer = () => ({ action: 'accept', content: { repo: 'me/thing' } });
    const outcome = await mcpx.getPrompt('fx', 'ask_prompt', { topic: 'bugs' });
    if (outcome.status !== 'complete') throw new Error(`expected complete, got ${JSON.stringify(outcome)}`);
    expect(outcome.method).toBe('prompts/get');
    expect(promptEcho(outcome.result)).toMatchObject({
      era,
      received: { details: { action: 'accept', content: { repo: 'me/thing', private: false, priority: 'normal' } } },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ server: 'fx', tool: 'ask_prompt', method: 'prompts/get', era, mode: 'form' });
    expect(seen[0]!.message).toContain('bugs');
  });

  it('reads a resource whose question is declined, and decline reaches the server as decline', async () => {
    seen.length = 0;
    answer = () => ({ action: 'decline' });
    const outcome = await mcpx.readResource('fx', 'mcpx-fixture://ask');
    if (outcome.status !== 'complete') throw new Error(`expected complete, got ${JSON.stringify(outcome)}`);
    expect(outcome.method).toBe('resources/read');
    expect(resourceEcho(outcome.result)).toMatchObject({
      resource: 'mcpx-fixture://ask',
      era,
      received: { confirm: { action: 'decline' } },
    });
    expect(seen[0]).toMatchObject({ tool: 'mcpx-fixture://ask', method: 'resources/read' });
  });

  it('reads a resource whose question is cancelled, and cancel stays cancel', async () => {
    answer = () => ({ action: 'cancel' });
    const outcome = await mcpx.readResource('fx', 'mcpx-fixture://ask');
    if (outcome.status !== 'complete') throw new Error(`expected complete, got ${JSON.stringify(outcome)}`);
    expect(resourceEcho(outcome.result)).toMatchObject({ received: { confirm: { action: 'cancel' } } });
  });

  it('leaves an unanswered prompt question as input-required, answered later', async () => {
    answer = () => undefined;
    const outcome = await mcpx.getPrompt('fx', 'ask_prompt', { topic: 'later' });
    if (outcome.status !== 'input-required') throw new Error(`expected input-required, got ${JSON.stringify(outcome)}`);
    expect(outcome.method).toBe('prompts/get');
    const [question] = outcome.questions;
    expect(question).toMatchObject({ method: 'prompts/get', tool: 'ask_prompt' });
    let done;
    if (era === 'modern') {
      expect(outcome.continuation?.method).toBe('prompts/get');
      // Another instance (as another process would) resumes from the JSON alone.
      const other = await createMcpx({
        config: { mcpServers: { fx: entry() as never } },
        eraCache: createMemoryEraCache(),
        answerLater: true,
        env,
      });
      try {
        done = await other.resume<GetPromptResult>(JSON.parse(JSON.stringify(outcome.continuation)), {
          [question!.id]: { action: 'accept', content: { repo: 'a/b' } },
        });
      } finally {
        await other.close();
      }
    } else {
      expect(outcome.live).toBeDefined();
      outcome.live!.respond(question!.id, { action: 'accept', content: { repo: 'a/b' } });
      done = await outcome.live!.result;
    }
    if (done.status !== 'complete') throw new Error(`expected complete, got ${JSON.stringify(done)}`);
    expect(promptEcho(done.result)).toMatchObject({ received: { details: { action: 'accept', content: { repo: 'a/b' } } } });
  });

  it('leaves an unanswered resource question as input-required, answered later', async () => {
    answer = () => undefined;
    const outcome = await mcpx.readResource('fx', 'mcpx-fixture://ask');
    if (outcome.status !== 'input-required') throw new Error(`expected input-required, got ${JSON.stringify(outcome)}`);
    const [question] = outcome.questions;
    let done;
    if (era === 'modern') {
      expect(outcome.continuation).toMatchObject({ method: 'resources/read', tool: 'mcpx-fixture://ask' });
      done = await mcpx.resume<ReadResourceResult>(outcome.continuation, {
        [question!.id]: { action: 'accept', content: { confirm: true } },
      });
    } else {
      outcome.live!.respond(question!.id, { action: 'accept', content: { confirm: true } });
      done = await outcome.live!.result;
    }
    if (done.status !== 'complete') throw new Error(`expected complete, got ${JSON.stringify(done)}`);
    expect(resourceEcho(done.result)).toMatchObject({ received: { confirm: { action: 'accept', content: { confirm: true } } } });
  });
});

describe('prompts and resources that never ask', () => {
  it('gets a plain prompt and reads a plain resource on a modern server', async () => {
    const mcpx = await createMcpx({
      config: { mcpServers: { fx: { ...stdioFixture('dual-era') } } },
      eraCache: createMemoryEraCache(),
      env,
    });
    try {
      const prompt = await mcpx.getPrompt('fx', 'plain_prompt', { topic: 'tea' });
      expect(prompt.status === 'complete' && prompt.result.messages[0]?.content).toMatchObject({
        type: 'text',
        text: 'Tell me about tea.',
      });
      const resource = await mcpx.readResource('fx', 'mcpx-fixture://plain');
      expect(resource.status === 'complete' && resource.result.contents[0]).toMatchObject({
        uri: 'mcpx-fixture://plain',
        text: 'plain contents',
      });
    } finally {
      await mcpx.close();
    }
  });
});
