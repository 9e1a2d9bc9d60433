/**
 * `mcpx serve` forwards an upstream's question text cleaned, and never a URL mcpx would not open. The upstream
 * (test/fixtures/servers/hostile.mjs, legacy and modern) asks with a screen clear, an OSC 52 clipboard write, a window
 * title, C0/C1 controls and a bidi override in the message, a field's title and description and its enum names, and
 * asks to open a `javascript:` URL. A real v2 client behind the built CLI (legacy era, modern era, modern with
 * sampling declared so the round is relayed, and one that cannot be asked) sees the text without any of it, never
 * sees the javascript: URL, and the upstream gets a decline for that question (never an accept).
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { received, serveSetup, stdioServe, textOf, type Asked, type ServeSetup } from '../helpers/serve.js';

const FIXTURE = resolve(import.meta.dirname, '..', 'fixtures', 'servers', 'hostile.mjs');
const upstream = (era: 'legacy' | 'modern') => ({ command: process.execPath, args: [FIXTURE, '--stdio'], era });

// Any C0 control but tab and newline, DEL, C1 controls, bidi marks and overrides.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Every string inside a value (keys included). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, v]) => [key, ...strings(v)]);
  return [];
}

function expectClean(value: unknown): void {
  const text = JSON.stringify(value);
  for (const s of strings(value)) expect(s, `unsafe text in ${text}`).not.toMatch(UNSAFE);
  // What the escapes carried goes with them: the title, the clipboard's payload.
  expect(text).not.toContain('pwned');
  expect(text).not.toContain('Y3VybCBldmls');
  // The URL itself, never (a refusal may name the scheme it refused).
  expect(text).not.toContain('javascript:fetch');
  expect(text).not.toContain('evil.example');
}

let setup: ServeSetup;
beforeAll(() => {
  setup = serveSetup({ legacy: upstream('legacy'), modern: upstream('modern') }, { MCPX_SESSION_ID: 'serve-hostile-text-test' });
});

interface Downstream {
  client: Client;
  asked: Asked[];
}

async function connect(options: { era: 'legacy' | 'modern'; elicit: boolean; sampling?: boolean }): Promise<Downstream> {
  const asked: Asked[] = [];
  const client = new Client(
    { name: 'v2-hostile', version: '1.0.0' },
    {
      capabilities: {
        ...(options.elicit ? { elicitation: { form: {}, url: {} } } : {}),
        ...(options.sampling ? { sampling: {} } : {}),
      },
      versionNegotiation: { mode: options.era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
      inputRequired: { autoFulfill: true },
    },
  );
  if (options.elicit)
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as unknown as Asked;
      asked.push(params);
      // Whatever is asked is accepted: a URL that got through would be "opened".
      return (params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { colour: 'red' } }) as never;
    });
  if (options.sampling)
    client.setRequestHandler('sampling/createMessage', async () => {
      throw new Error('not asked in this test');
    });
  await client.connect(new StdioClientTransport(stdioServe(setup)));
  return { client, asked };
}

const call = async (client: Client, name: string): Promise<Record<string, unknown>> =>
  (await client.callTool({ name, arguments: {} }, { timeout: 30_000 })) as unknown as Record<string, unknown>;

const clients = [
  { name: 'legacy era', options: { era: 'legacy', elicit: true } },
  { name: 'modern era', options: { era: 'modern', elicit: true } },
  { name: 'modern era, sampling declared (relayed rounds)', options: { era: 'modern', elicit: true, sampling: true } },
] as const;

describe.each(clients)('mcpx serve to a v2 client ($name) that declared elicitation', ({ options }) => {
  let downstream: Downstream;
  beforeAll(async () => {
    downstream = await connect(options);
  }, 30_000);
  afterAll(() => downstream.client.close());

  it.each(['legacy', 'modern'] as const)(
    "forwards the %s upstream's question with its message, titles, descriptions and enum names cleaned",
    { timeout: 60_000 },
    async (server) => {
      const before = downstream.asked.length;
      const result = await call(downstream.client, `${server}__ask_hostile`);
      const asked = downstream.asked.slice(before);
      expect(asked).toHaveLength(1);
      expectClean(asked);
      const question = asked[0]!;
      expect(question.message).toBe(`${server} (via mcpx) asks: Pick a colour now`);
      const properties = question.requestedSchema?.properties as Record<string, Record<string, unknown>>;
      expect(properties.colour).toMatchObject({
        title: 'Colour',
        description: 'Your favourite',
        enum: ['red', 'blue'],
        enumNames: ['Red', 'Blue'],
      });
      expect(properties.size).toMatchObject({
        title: 'Size',
        oneOf: [
          { const: 's', title: 'Small' },
          { const: 'l', title: 'Large' },
        ],
      });
      // The cleaned question is still the upstream's: the answer reaches it as given.
      expect(received(result, 'pick')).toEqual({ action: 'accept', content: { colour: 'red' } });
    },
  );

  it.each(['legacy', 'modern'] as const)(
    "declines the %s upstream's question whose field name and choice carry escapes (cleaning them would change the answer)",
    { timeout: 60_000 },
    async (server) => {
      const before = downstream.asked.length;
      const result = await call(downstream.client, `${server}__ask_hostile_names`);
      expect(downstream.asked.slice(before)).toEqual([]);
      expect(received(result, 'pick')).toEqual({ action: 'decline' });
    },
  );

  it.each(['legacy', 'modern'] as const)(
    "never forwards the %s upstream's javascript: URL: the question is declined, never accepted",
    { timeout: 60_000 },
    async (server) => {
      const before = downstream.asked.length;
      const result = await call(downstream.client, `${server}__ask_js_url`);
      expect(downstream.asked.slice(before)).toEqual([]);
      expect(received(result, 'open')).toEqual({ action: 'decline' });
      expectClean(result);
    },
  );
});

describe('mcpx serve relaying a modern upstream that asks only for javascript: URLs', () => {
  let downstream: Downstream;
  beforeAll(async () => {
    downstream = await connect({ era: 'modern', elicit: true, sampling: true });
  }, 30_000);
  afterAll(() => downstream.client.close());

  it('declines three rounds, then fails the call, never forwarding the URL', { timeout: 60_000 }, async () => {
    const result = await call(downstream.client, 'modern__ask_js_url_always');
    expect(downstream.asked).toEqual([]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('kept asking what mcpx serve does not forward');
    expectClean(result);
  });
});

describe('mcpx serve to a v2 client that cannot be asked (the mcpx_elicit_* tools)', () => {
  let downstream: Downstream;
  beforeAll(async () => {
    downstream = await connect({ era: 'modern', elicit: false });
  }, 30_000);
  afterAll(() => downstream.client.close());

  it.each(['legacy', 'modern'] as const)(
    "shows the %s upstream's question cleaned in the input-required text and in mcpx_elicit_list",
    { timeout: 60_000 },
    async (server) => {
      const waiting = await call(downstream.client, `${server}__ask_hostile`);
      expectClean(waiting);
      expect(textOf(waiting)).toContain('Pick a colour now');
      const stop = (waiting._meta as Record<string, { task: string; questions: Array<{ id: string; message: string }> }>)[
        'io.mcpx/inputRequired'
      ]!;
      expect(stop.questions.map((q) => q.message)).toEqual(['Pick a colour now']);
      const listed = await call(downstream.client, 'mcpx_elicit_list');
      expectClean(listed);
      const questions = (listed.structuredContent as { questions: Array<Record<string, any>> }).questions.filter(
        (q) => q.id === stop.questions[0]!.id,
      );
      expect(questions).toHaveLength(1);
      expect(questions[0]!.requestedSchema.properties.colour).toMatchObject({ title: 'Colour', enumNames: ['Red', 'Blue'] });
      const done = (await downstream.client.callTool(
        {
          name: 'mcpx_elicit_answer',
          arguments: { id: stop.questions[0]!.id, action: 'accept', content: { colour: 'blue' }, waitSeconds: 20 },
        },
        { timeout: 30_000 },
      )) as unknown as Record<string, unknown>;
      expect(received(done, 'pick')).toEqual({ action: 'accept', content: { colour: 'blue' } });
    },
  );

  it.each(['legacy', 'modern'] as const)(
    "declines the %s upstream's javascript: URL question instead of showing it",
    { timeout: 60_000 },
    async (server) => {
      const result = await call(downstream.client, `${server}__ask_js_url`);
      expectClean(result);
      expect(received(result, 'open')).toEqual({ action: 'decline' });
      expectClean(await call(downstream.client, 'mcpx_elicit_list'));
    },
  );
});
