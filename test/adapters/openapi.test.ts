/**
 * The OpenAPI adapter against a real HTTP API started by the test (examples/servers/notes-api.mjs, which counts
 * what it receives): reads run without a question; a confirmed write asks first and is sent exactly once after
 * accept, and never after decline, cancel or a deadline that passed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNotesApi, type NotesApi } from '../../examples/servers/notes-api.mjs';
import { createMcpx, type Mcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import type { Answer, ElicitHandler, Question } from '../../src/types.js';

let api: NotesApi;
beforeAll(async () => {
  api = await startNotesApi();
});
afterAll(() => api.close());

let mcpx: Mcpx | undefined;
afterEach(async () => {
  await mcpx?.close();
  mcpx = undefined;
  for (const key of Object.keys(api.requests)) delete api.requests[key];
});

function open(onElicit?: ElicitHandler, extra: Record<string, unknown> = {}, ttlMs?: number): Promise<Mcpx> {
  return createMcpx({
    config: { mcpServers: { api: { openapi: `${api.url}/openapi.json`, methods: ['all'], ...extra } } } as never,
    env: {},
    eraCache: createMemoryEraCache(),
    ...(onElicit ? { onElicit } : { answerLater: true }),
    ...(ttlMs ? { elicitTtlMs: ttlMs } : {}),
  });
}

function answering(answer: Answer | undefined, asked: Question[]): ElicitHandler {
  return async (question) => {
    asked.push(question);
    return answer;
  };
}

const textOf = (result: { content?: unknown }): string => (result.content as Array<{ text?: string }>)[0]?.text ?? '';

describe('OpenAPI adapter', () => {
  it('lists one tool per operation with input and output schemas from the document', async () => {
    mcpx = await open(answering(undefined, []));
    const tools = await mcpx.listTools('api');
    expect(tools.map((t) => t.name)).toEqual(['list_notes', 'create_note', 'get_note', 'delete_note']);
    const create = tools.find((t) => t.name === 'create_note')!;
    expect(create.inputSchema).toMatchObject({
      type: 'object',
      properties: { body: { type: 'object', required: ['title'] } },
      required: ['body'],
    });
    expect(create.outputSchema).toMatchObject({
      type: 'object',
      properties: { id: { type: 'integer' } },
      required: ['id', 'title'],
    });
    expect(create.description).toContain('POST /notes');
    expect(create.description).toContain('Asks for confirmation');
    const get = tools.find((t) => t.name === 'get_note')!;
    expect(get.inputSchema).toMatchObject({ properties: { id: { type: 'integer' } }, required: ['id'] });
    expect(get.annotations?.readOnlyHint).toBe(true);
  });

  it('serves only GET operations by default', async () => {
    mcpx = await createMcpx({
      config: { mcpServers: { api: { openapi: `${api.url}/openapi.json` } } } as never,
      env: {},
      eraCache: createMemoryEraCache(),
    });
    expect((await mcpx.listTools('api')).map((t) => t.name)).toEqual(['list_notes', 'get_note']);
  });

  it('runs a read without a question', async () => {
    const asked: Question[] = [];
    mcpx = await open(answering({ action: 'decline' }, asked));
    const outcome = await mcpx.callTool('api', 'list_notes', { limit: 5 });
    expect(outcome.status).toBe('complete');
    if (outcome.status !== 'complete') return;
    expect(outcome.result.isError).toBeFalsy();
    expect(outcome.result.structuredContent).toEqual({ notes: expect.any(Array) });
    expect(asked).toEqual([]);
    expect(api.requests['GET /notes']).toBe(1);
  });

  it('asks before a write and sends it exactly once after accept', async () => {
    const asked: Question[] = [];
    mcpx = await open(answering({ action: 'accept', content: {} }, asked));
    const outcome = await mcpx.callTool('api', 'create_note', { body: { title: 'from the adapter' } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      server: 'api',
      tool: 'create_note',
      mode: 'form',
      message: 'POST /notes with {"title":"from the adapter"}: proceed?',
    });
    expect(outcome.status).toBe('complete');
    if (outcome.status !== 'complete') return;
    expect(outcome.result.isError).toBeFalsy();
    expect(outcome.result.structuredContent).toMatchObject({ title: 'from the adapter' });
    expect(api.requests['POST /notes']).toBe(1);
  });

  it.each([
    ['decline', 'declined'],
    ['cancel', 'cancelled'],
  ] as const)('sends nothing after %s and says so', async (action, word) => {
    const asked: Question[] = [];
    mcpx = await open(answering({ action }, asked));
    const outcome = await mcpx.callTool('api', 'delete_note', { id: 1 });
    expect(asked.map((q) => q.message)).toEqual(['DELETE /notes/1: proceed?']);
    expect(outcome.status).toBe('complete');
    if (outcome.status !== 'complete') return;
    expect(outcome.result.isError).toBe(true);
    expect(textOf(outcome.result)).toBe(`not sent: the confirmation was ${word} (DELETE /notes/1)`);
    expect(outcome.result._meta).toEqual({ 'io.mcpx/confirmation': word });
    expect(api.requests['DELETE /notes/{id}']).toBeUndefined();
  });

  it('sends nothing when the question expires unanswered, and says it expired', async () => {
    // Nobody answers: the handler only returns when the call gives up on it.
    const waitForever: ElicitHandler = (_q, context) =>
      new Promise((resolve) => context.signal.addEventListener('abort', () => resolve(undefined)));
    mcpx = await open(waitForever, {}, 300);
    const outcome = await mcpx.callTool('api', 'create_note', { body: { title: 'never sent' } });
    expect(outcome.status).toBe('complete');
    if (outcome.status !== 'complete') return;
    expect(textOf(outcome.result)).toBe(
      'not sent: the confirmation was not answered before its deadline (cancelled) (POST /notes with {"title":"never sent"})',
    );
    expect(outcome.result._meta).toEqual({ 'io.mcpx/confirmation': 'expired' });
    expect(api.requests['POST /notes']).toBeUndefined();
  });

  it('sends a method left out of confirm without asking', async () => {
    const asked: Question[] = [];
    mcpx = await open(answering({ action: 'decline' }, asked), { confirm: ['DELETE'] });
    const outcome = await mcpx.callTool('api', 'create_note', { body: { title: 'no question' } });
    expect(outcome.status === 'complete' && outcome.result.isError).toBeFalsy();
    expect(asked).toEqual([]);
    expect(api.requests['POST /notes']).toBe(1);
  });

  it('refuses arguments that do not match the input schema, sending nothing', async () => {
    mcpx = await open(answering({ action: 'accept', content: {} }, []));
    const outcome = await mcpx.callTool('api', 'create_note', { body: { title: 42 } });
    expect(outcome.status === 'complete' && textOf(outcome.result)).toMatch(
      /^create_note: invalid arguments: \/body\/title must be string/,
    );
    expect(api.requests['POST /notes']).toBeUndefined();
  });

  it('reports an HTTP error status as a tool error', async () => {
    mcpx = await open(answering(undefined, []));
    const outcome = await mcpx.callTool('api', 'get_note', { id: 999 });
    expect(outcome.status === 'complete' && outcome.result.isError).toBe(true);
    expect(outcome.status === 'complete' && textOf(outcome.result)).toBe(
      'GET /notes/999 → HTTP 404 Not Found: {"error":"no note 999"}',
    );
  });
});

describe('OpenAPI adapter through the broker and policy', () => {
  it('lets a policy rule approve a confirmed write without a person, and records the rule', async () => {
    const { createBroker } = await import('../../src/broker/index.js');
    const { createElicitationPipeline } = await import('../../src/pipeline/pipeline.js');
    const { parsePolicy } = await import('../../src/policy/index.js');
    const broker = createBroker({ session: 's-adapter' });
    const policy = parsePolicy({
      mode: 'auto',
      rules: [{ match: { server: 'api', tool: 'create_note' }, action: 'accept', because: 'CI may create notes' }],
    });
    mcpx = await open(createElicitationPipeline({ broker, policy }));
    const created = await mcpx.callTool('api', 'create_note', { body: { title: 'approved by policy' } });
    expect(created.status === 'complete' && created.result.structuredContent).toMatchObject({ title: 'approved by policy' });
    expect(api.requests['POST /notes']).toBe(1);
    // The same policy has no rule for DELETE: auto mode cancels it, and nothing is sent.
    const deleted = await mcpx.callTool('api', 'delete_note', { id: 1 });
    expect(deleted.status === 'complete' && textOf(deleted.result)).toBe(
      'not sent: the confirmation was cancelled (DELETE /notes/1)',
    );
    expect(api.requests['DELETE /notes/{id}']).toBeUndefined();
    const events = await broker.audit({});
    expect(events.some((e) => JSON.stringify(e).includes('CI may create notes'))).toBe(true);
    await broker.close();
  });
});
