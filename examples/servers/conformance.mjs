#!/usr/bin/env node
/**
 * Fixture: the tools, prompts, resources and questions the MCP conformance suite's server scenarios ask for (written from the
 * scenarios' descriptions), on the v2 SDK, both eras, over Streamable HTTP (the referee speaks nothing else).
 * `npm run conformance -- --server` referees it directly, then through `mcpx serve --http` in front of it.
 *
 *   node examples/servers/conformance.mjs [--port 0] [--host 127.0.0.1]   # prints its URL on one stdout line
 *
 * Questions are asked as input_required (MRTR): modern clients get them as results, legacy ones as real
 * `elicitation/create` requests from the SDK's legacy shim. A request state is HMAC-signed (tamper => -32602).
 */
import { createServer } from 'node:http';
import { randomUUID, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import {
  CLIENT_CAPABILITIES_META_KEY,
  McpServer,
  ResourceTemplate,
  completable,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';
const text = (value) => ({ content: [{ type: 'text', text: value }] });
const none = z.object({});

const elicit = (message, properties, required) =>
  inputRequired.elicit({
    mode: 'form',
    message,
    requestedSchema: { type: 'object', properties, ...(required ? { required } : {}) },
  });
const sampling = (prompt, maxTokens) => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens },
});
const roots = () => ({ method: 'roots/list', params: {} });

/** The capabilities the request declared: its own envelope (modern) or the connection's (legacy). */
function declared(ctx, server) {
  return ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.server.getClientCapabilities() ?? {};
}

function elicited(ctx, key) {
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  return view.kind === 'elicit' ? view : undefined;
}

/**
 * `listens` (modern requests): which URIs open `subscriptions/listen` streams name, and `updated(uri)` to put a
 * change on them. A legacy session has its own resources/subscribe set.
 */
export function createConformanceServer({ codec, listens, endSessions }) {
  const server = new McpServer(
    { name: 'mcpx-conformance-fixture', version: '1.0.0' },
    {
      capabilities: { tools: {}, prompts: {}, resources: { subscribe: true }, logging: {}, completions: {} },
      requestState: { verify: codec.verify },
    },
  );
  const tool = (name, description, handler, inputSchema = none) =>
    server.registerTool(name, { description, inputSchema }, handler);

  tool('test_simple_text', 'Returns simple text.', async () => text('This is a simple text response for testing.'));
  tool('test_image_content', 'Returns an image.', async () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  tool('test_audio_content', 'Returns audio.', async () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }));
  const resource = {
    type: 'resource',
    resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
  };
  tool('test_embedded_resource', 'Returns an embedded resource.', async () => ({ content: [resource] }));
  tool('test_multiple_content_types', 'Returns text, an image and a resource.', async () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        ...resource,
        resource: {
          ...resource.resource,
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: '{"test":"data","value":123}',
        },
      },
    ],
  }));
  tool('test_error_handling', 'Always fails.', async () => ({
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  }));

  // Legacy-era questions (the shim sends them as elicitation/create on legacy connections).
  tool(
    'test_elicitation',
    'Asks the user for a username and email.',
    async ({ message }, ctx) => {
      const got = elicited(ctx, 'user');
      if (got) return text(`User response: action=${got.action}, content=${JSON.stringify(got.content ?? {})}`);
      return inputRequired({
        inputRequests: {
          user: elicit(
            message,
            {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            ['username', 'email'],
          ),
        },
      });
    },
    z.object({ message: z.string() }),
  );
  tool('test_elicitation_sep1034_defaults', 'Asks with defaults for every primitive type.', async (_args, ctx) => {
    const got = elicited(ctx, 'defaults');
    if (got) return text(`Elicitation completed: action=${got.action}, content=${JSON.stringify(got.content ?? {})}`);
    return inputRequired({
      inputRequests: {
        defaults: elicit('Please review and update the form fields with defaults', {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        }),
      },
    });
  });
  tool('test_elicitation_sep1330_enums', 'Asks with every enum shape.', async (_args, ctx) => {
    const got = elicited(ctx, 'enums');
    if (got) return text(`Elicitation completed: action=${got.action}, content=${JSON.stringify(got.content ?? {})}`);
    return inputRequired({
      inputRequests: {
        enums: elicit('Please select options from the enum fields', {
          untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            description: 'Select one option with titles',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Select one option (legacy)',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Select multiple options',
            minItems: 1,
            maxItems: 3,
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Select multiple options with titles',
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        }),
      },
    });
  });

  // 2026-07-28 input_required (SEP-2322).
  const askName = (ctx, stateful) => async () =>
    inputRequired({
      inputRequests: { user_name: elicit('What is your name?', { name: { type: 'string' } }, ['name']) },
      ...(stateful ? { requestState: await codec.mint({ step: 'name' }, ctx) } : {}),
    });
  tool('test_input_required_result_elicitation', 'Asks for a name (key user_name).', async (_args, ctx) => {
    const got = elicited(ctx, 'user_name');
    const name = got?.action === 'accept' && typeof got.content?.name === 'string' ? got.content.name : undefined;
    if (got && (got.action !== 'accept' || name))
      return text(got.action === 'accept' ? `Hello, ${name}!` : `No name given (${got.action}).`);
    return askName(ctx, false)();
  });
  tool('test_input_required_result_sampling', 'Asks the client to sample.', async (_args, ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'capital_question');
    if (view.kind === 'sampling') return text(`The model said: ${JSON.stringify(view.result?.content ?? view)}`);
    return inputRequired({ inputRequests: { capital_question: sampling('What is the capital of France?', 100) } });
  });
  tool('test_input_required_result_list_roots', 'Asks for the client roots.', async (_args, ctx) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, 'client_roots');
    if (view.kind === 'roots') return text(`Roots: ${JSON.stringify(view.result?.roots ?? view)}`);
    return inputRequired({ inputRequests: { client_roots: roots() } });
  });
  const confirmWithState = (name) => async (_args, ctx) => {
    const state = ctx.mcpReq.requestState();
    const got = elicited(ctx, 'confirm');
    if (got && state) return text(`state-ok: ${name} confirmed (${got.action})`);
    return inputRequired({
      inputRequests: { confirm: elicit('Please confirm', { ok: { type: 'boolean' } }, ['ok']) },
      requestState: await codec.mint({ tool: name }, ctx),
    });
  };
  tool('test_input_required_result_request_state', 'Asks with a request state.', confirmWithState('request_state'));
  tool('test_input_required_result_tampered_state', 'Asks with a signed request state.', confirmWithState('tampered_state'));
  tool('test_input_required_result_multiple_inputs', 'Asks three things at once.', async (_args, ctx) => {
    const responses = ctx.mcpReq.inputResponses ?? {};
    if (ctx.mcpReq.requestState() && ['user_name', 'greeting', 'client_roots'].every((k) => responses[k]))
      return text('Got every input.');
    return inputRequired({
      inputRequests: {
        user_name: elicit('What is your name?', { name: { type: 'string' } }, ['name']),
        greeting: sampling('Generate a greeting', 50),
        client_roots: roots(),
      },
      requestState: await codec.mint({ tool: 'multiple' }, ctx),
    });
  });
  tool('test_input_required_result_multi_round', 'Asks over two rounds.', async (_args, ctx) => {
    const state = ctx.mcpReq.requestState();
    if (state?.round === 2 && elicited(ctx, 'step2'))
      return text(`Done: ${JSON.stringify(state.name)} likes ${JSON.stringify(elicited(ctx, 'step2').content?.color)}`);
    const step1 = elicited(ctx, 'step1');
    if (state?.round === 1 && step1) {
      return inputRequired({
        inputRequests: { step2: elicit('Step 2: What is your favorite color?', { color: { type: 'string' } }, ['color']) },
        requestState: await codec.mint({ round: 2, name: step1.content?.name ?? null }, ctx),
      });
    }
    return inputRequired({
      inputRequests: { step1: elicit('Step 1: What is your name?', { name: { type: 'string' } }, ['name']) },
      requestState: await codec.mint({ round: 1 }, ctx),
    });
  });
  tool('test_input_required_result_capabilities', 'Asks only for what the client declared.', async (_args, ctx) => {
    if (Object.keys(ctx.mcpReq.inputResponses ?? {}).length) return text('Got the input.');
    const caps = declared(ctx, server);
    const requests = {};
    if (caps.elicitation) requests.user_name = elicit('What is your name?', { name: { type: 'string' } }, ['name']);
    if (caps.sampling) requests.greeting = sampling('Generate a greeting', 50);
    if (caps.roots) requests.client_roots = roots();
    if (!Object.keys(requests).length) return text('Nothing to ask this client.');
    return inputRequired({ inputRequests: requests });
  });
  server.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'A prompt that needs context first.' },
    async (ctx) => {
      const got = elicited(ctx, 'user_context');
      if (got)
        return {
          messages: [
            { role: 'user', content: { type: 'text', text: `Context: ${JSON.stringify(got.content?.context ?? got.action)}` } },
          ],
        };
      return inputRequired({
        inputRequests: {
          user_context: elicit('What context should the prompt use?', { context: { type: 'string' } }, ['context']),
        },
      });
    },
  );

  // Logging and progress (tools-call-with-logging, tools-call-with-progress), with the scenarios' delays.
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));
  tool('test_tool_with_logging', 'Logs three messages while it runs.', async (_args, ctx) => {
    for (const [i, message] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
      if (i) await pause(50);
      await ctx.mcpReq.log('info', message);
    }
    return text('Tool with logging executed successfully.');
  });
  tool('test_tool_with_progress', 'Reports progress 0, 50 and 100 of 100.', async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const [i, progress] of [0, 50, 100].entries()) {
      if (i) await pause(50);
      if (progressToken !== undefined)
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100 } });
    }
    return text('Tool with progress executed successfully.');
  });
  // Sampling (tools-call-sampling): legacy connections get a real sampling/createMessage from the shim.
  tool(
    'test_sampling',
    'Asks the client to sample an LLM.',
    async ({ prompt }, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'sample');
      if (view.kind === 'sampling') {
        const content = view.result?.content;
        return text(`LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(content ?? null)}`);
      }
      if (!declared(ctx, server).sampling) return { isError: true, ...text('This client does not support sampling.') };
      return inputRequired({ inputRequests: { sample: sampling(prompt, 100) } });
    },
    z.object({ prompt: z.string() }),
  );

  // Resources: two static ones, a template, and one to subscribe to.
  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource.', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A static binary resource (a PNG).', mimeType: 'image/png' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }] }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource to subscribe to.', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content.' }] }),
  );
  server.registerResource(
    'template-data',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'Data for an id.', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );
  const subscribed = new Set();
  server.server.setRequestHandler('resources/subscribe', async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  // Not a scenario's (mcpx's own tests): tells who watches that the watched resource changed. A legacy session: if it
  // subscribed. A modern request: the open subscriptions/listen streams that name it (any client's).
  tool('test_update_watched_resource', 'Changes test://watched-resource.', async (_args, ctx) => {
    const uri = 'test://watched-resource';
    if (ctx.mcpReq.envelope && listens) {
      const watched = listens.count(uri) > 0;
      if (watched) listens.updated(uri);
      return text(`notified: ${watched}`);
    }
    if (subscribed.has(uri)) await ctx.mcpReq.notify({ method: 'notifications/resources/updated', params: { uri } });
    return text(`notified: ${subscribed.has(uri)}`);
  });

  // Not a scenario's (mcpx's own tests): ends the open listen streams that name the watched resource, as a server
  // that drops them does (the stream ends without a response); says how many it ended.
  tool('test_end_watched_listens', 'Ends the subscriptions/listen streams on test://watched-resource.', async () =>
    text(`ended: ${listens?.end('test://watched-resource') ?? 0}`),
  );
  // Not a scenario's (mcpx's own tests): forgets every legacy session just after answering, as a server that
  // restarted does (their ids get 404).
  if (endSessions)
    tool('test_end_legacy_sessions', 'Ends every legacy session.', async () => {
      setTimeout(endSessions, 50);
      return text('ending');
    });
  // Not a scenario's (mcpx's own tests): the same, and the resource changes while no listen stream names it (a new
  // listen waits until it has), so the change is told to nobody.
  tool('test_change_watched_between_listens', 'Ends the listens on test://watched-resource, then changes it.', async () =>
    text(`ended: ${(await listens?.endThenUpdate('test://watched-resource')) ?? 0}`),
  );

  // Prompts (prompts-get-*), arg1 completable (completion-complete).
  const userText = (value) => ({ role: 'user', content: { type: 'text', text: value } });
  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt.' }, async () => ({
    messages: [userText('This is a simple prompt for testing.')],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two arguments.',
      argsSchema: z.object({
        arg1: completable(z.string().describe('First test argument'), (value) =>
          ['paris', 'park', 'party'].filter((v) => v.startsWith(value)),
        ),
        arg2: z.string().describe('Second test argument'),
      }),
    },
    async ({ arg1, arg2 }) => ({ messages: [userText(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)] }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'A prompt that embeds a resource.', argsSchema: z.object({ resourceUri: z.string() }) },
    async ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        userText('Please process the embedded resource above.'),
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image.' }, async () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      userText('Please analyze the image above.'),
    ],
  }));

  // server-stateless: a question on a modern request travels only as input_required; a missing capability is -32021.
  tool('test_streaming_elicitation', 'Asks for a name (as input_required).', async (_args, ctx) =>
    elicited(ctx, 'user_name') ? text('Thanks.') : askName(ctx, false)(),
  );
  // Logs only when the request asked for a level (2026-07-28: no logLevel, no log notifications; the SDK filters).
  tool('test_logging_tool', 'Logs a message.', async (_args, ctx) => {
    await ctx.mcpReq.log('info', 'test_logging_tool ran');
    return text('Logged.');
  });
  tool('test_missing_capability', 'Needs sampling.', async (_args, ctx) =>
    inputResponse(ctx.mcpReq.inputResponses, 'greeting').kind === 'sampling'
      ? text('Sampled.')
      : inputRequired({ inputRequests: { greeting: sampling('Generate a greeting', 50) } }),
  );
  return server;
}

/** The fixture over Streamable HTTP: modern traffic per request, legacy traffic sessionful; Host and Origin checked. */
export function createConformanceHttpServer({ key = randomBytes(32) } = {}) {
  const codec = createRequestStateCodec({ key, ttlSeconds: 600, bind: (ctx) => ctx.mcpReq.method });
  // Open listen streams per URI (the handler's listen router serves them; this counts them for the tool above).
  const listening = new Map();
  /** The responses of the open listen streams, per URI (to end them). */
  const streams = new Map();
  const listens = {
    count: (uri) => listening.get(uri) ?? 0,
    updated: (uri) => handler.notify.resourceUpdated(uri),
    end: (uri) => {
      const open = [...(streams.get(uri) ?? [])];
      for (const res of open) res.destroy();
      return open.length;
    },
    endThenUpdate: async (uri) => {
      let reopen = () => undefined;
      gate = new Promise((resolve) => (reopen = resolve));
      const ended = listens.end(uri);
      // Every stream closed (its close handler ran), then the change, which reaches no stream; then listens come in.
      while (listens.count(uri) > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      listens.updated(uri);
      gate = undefined;
      reopen();
      return ended;
    },
  };
  /** While a change is made between listens: new listens wait for it. */
  let gate;
  const handler = createMcpHandler(() => createConformanceServer({ codec, listens }), { legacy: 'reject' });
  const modernHandler = toNodeHandler(handler);
  const modern = async (req, res, body) => {
    const uris = body?.method === 'subscriptions/listen' ? (body.params?.notifications?.resourceSubscriptions ?? []) : [];
    if (uris.length) await gate;
    for (const uri of uris) {
      listening.set(uri, listens.count(uri) + 1);
      if (!streams.has(uri)) streams.set(uri, new Set());
      streams.get(uri).add(res);
    }
    if (uris.length)
      res.once('close', () => {
        for (const uri of uris) {
          listening.set(uri, listens.count(uri) - 1);
          streams.get(uri)?.delete(res);
        }
      });
    return modernHandler(req, res, body);
  };
  const sessions = new Map();
  const deny = (res, message) =>
    res
      .writeHead(403, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  const handle = async (req, res) => {
    const host = validateHostHeader(req.headers.host, localhostAllowedHostnames());
    if (!host.ok) return deny(res, host.message);
    const origin = validateOriginHeader(req.headers.origin, localhostAllowedOrigins());
    if (!origin.ok) return deny(res, origin.message);
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') ?? undefined;
      } catch {
        body = undefined;
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    const legacy = typeof sessionId === 'string' || (await isLegacyRequest(await toWebRequest(req, body ?? {}), body ?? {}));
    if (!legacy) return modern(req, res, body);
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (typeof sessionId === 'string') return res.writeHead(404).end();
      if (body?.method !== 'initialize') return res.writeHead(400).end();
      const opened = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, opened),
      });
      opened.onclose = () => opened.sessionId && sessions.delete(opened.sessionId);
      const endSessions = () => {
        const open = [...sessions.values()];
        sessions.clear();
        for (const t of open) void t.close();
      };
      await createConformanceServer({ codec, endSessions }).connect(opened);
      transport = opened;
    }
    await transport.handleRequest(req, res, body);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500).end(String(error?.message ?? error));
    });
  });
  server.on('close', () => {
    for (const t of sessions.values()) void t.close();
  });
  return server;
}

function argValue(argv, name, fallback) {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const host = argValue(process.argv, '--host', '127.0.0.1');
  const server = createConformanceHttpServer();
  server.listen(Number(argValue(process.argv, '--port', '0')), host, () =>
    process.stdout.write(`http://${host}:${server.address().port}/mcp\n`),
  );
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
