#!/usr/bin/env node
/**
 * Fixture: a dual-era MCP server on the v2 SDK (legacy 2025-11-25 and modern 2026-07-28), over stdio or
 * Streamable HTTP. Every asking tool answers with what it RECEIVED (accept + content, decline, cancel), so tests
 * can assert what reached the server. Questions use `inputRequired` (MRTR): modern clients get input_required
 * results; legacy clients get real `elicitation/create` requests from the SDK's legacy shim.
 *
 *   node examples/servers/dual-era.mjs --stdio
 *   node examples/servers/dual-era.mjs --http [--port 0] [--host 127.0.0.1]   # prints its URL on one stdout line
 *
 * Env: MCPX_FIXTURE_STATE_KEY (requestState HMAC key, >= 32 bytes; a fixed default so state survives a restart),
 *      MCPX_FIXTURE_STATE_TTL_S (default 600), MCPX_FIXTURE_SPAWN_LOG (a file: one line appended per process start),
 *      MCPX_FIXTURE_CALL_LOG (a file: one line appended per answered ask_form: `ask_form <title> <action>`).
 */
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import {
  McpServer,
  createMcpHandler,
  fromJsonSchema,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  isLegacyRequest,
} from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';

export const DEFAULT_STATE_KEY = 'mcpx-fixture-request-state-key-0123456789abcdef';
export const FIXTURE_URL = 'https://example.com/mcpx-fixture/authorize';

/** The form question `ask_form` asks: a string, a boolean with a default, an enum with a default. */
export const FORM_SCHEMA = {
  type: 'object',
  properties: {
    repo: { type: 'string', title: 'Repository', description: 'owner/name', minLength: 3 },
    private: { type: 'boolean', title: 'Private', default: false },
    priority: { type: 'string', title: 'Priority', enum: ['low', 'normal', 'high'], default: 'normal' },
  },
  required: ['repo'],
};
export const CONFIRM_SCHEMA = {
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Proceed?' } },
  required: ['confirm'],
};

/** What a tool received for one question, as echoed back. */
function received(view) {
  if (view.kind !== 'elicit') return { action: 'missing' };
  return view.content === undefined ? { action: view.action } : { action: view.action, content: view.content };
}

function echo(tool, era, answers, extra = {}) {
  const structuredContent = { tool, era, received: answers, ...extra };
  return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
}

/** Builds one server instance; `era` comes from the serving entry. */
export function createDualEraServer({
  era = 'legacy',
  stateKey = process.env.MCPX_FIXTURE_STATE_KEY || DEFAULT_STATE_KEY,
  stateTtlSeconds = Number(process.env.MCPX_FIXTURE_STATE_TTL_S || 600),
} = {}) {
  const codec = createRequestStateCodec({ key: stateKey, ttlSeconds: stateTtlSeconds, bind: (ctx) => ctx.mcpReq.method });
  const server = new McpServer(
    { name: 'mcpx-fixture-dual-era', version: '1.0.0' },
    {
      capabilities: { tools: {}, prompts: {}, resources: {} },
      requestState: { verify: codec.verify },
      inputRequired: { roundTimeoutMs: 3_600_000 },
    },
  );
  const titleArgs = z.object({ title: z.string().optional() });

  server.registerTool(
    'no_ask',
    { description: 'Never asks: echoes its text.', inputSchema: z.object({ text: z.string().optional() }) },
    async ({ text }) => echo('no_ask', era, {}, { text: text ?? '' }),
  );

  server.registerTool(
    'sleep',
    { description: 'Never asks: answers after ms milliseconds.', inputSchema: z.object({ ms: z.number().int().min(0) }) },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return echo('sleep', era, {}, { text: `slept ${ms} ms` });
    },
  );

  server.registerTool(
    'ask_form',
    { description: 'Asks one form question (repo, private, priority).', inputSchema: titleArgs },
    async ({ title }, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'details');
      if (view.kind === 'elicit') {
        if (process.env.MCPX_FIXTURE_CALL_LOG)
          appendFileSync(process.env.MCPX_FIXTURE_CALL_LOG, `ask_form ${title ?? ''} ${view.action}\n`);
        return echo('ask_form', era, { details: received(view) }, { state: ctx.mcpReq.requestState() ?? null });
      }
      return inputRequired({
        inputRequests: {
          details: inputRequired.elicit({
            mode: 'form',
            message: `Where should "${title ?? 'the issue'}" go?`,
            requestedSchema: FORM_SCHEMA,
          }),
        },
        requestState: await codec.mint({ tool: 'ask_form', title: title ?? null }, ctx),
      });
    },
  );

  // No requestState on purpose: a client must not invent one on the retry.
  server.registerTool(
    'ask_confirm',
    { description: 'Asks for a confirmation (yes/no).', inputSchema: z.object({ action: z.string().optional() }) },
    async ({ action }, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (view.kind === 'elicit') return echo('ask_confirm', era, { confirm: received(view) });
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            mode: 'form',
            message: `Really ${action ?? 'proceed'}?`,
            requestedSchema: CONFIRM_SCHEMA,
          }),
        },
      });
    },
  );

  server.registerTool(
    'ask_url',
    { description: 'Asks the user to open a URL (url mode).', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'authorize');
      if (view.kind === 'elicit') return echo('ask_url', era, { authorize: received(view) });
      return inputRequired({
        inputRequests: {
          authorize: inputRequired.elicitUrl({ message: 'Authorize the fixture in your browser.', url: FIXTURE_URL }),
        },
        requestState: await codec.mint({ tool: 'ask_url' }, ctx),
      });
    },
  );

  server.registerTool(
    'ask_two',
    { description: 'Asks two questions at once (details and confirm).', inputSchema: titleArgs },
    async ({ title }, ctx) => {
      const details = inputResponse(ctx.mcpReq.inputResponses, 'details');
      const confirm = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (details.kind === 'elicit' && confirm.kind === 'elicit')
        return echo('ask_two', era, { details: received(details), confirm: received(confirm) });
      return inputRequired({
        inputRequests: {
          details: inputRequired.elicit({
            mode: 'form',
            message: `Where should "${title ?? 'the issue'}" go?`,
            requestedSchema: FORM_SCHEMA,
          }),
          confirm: inputRequired.elicit({ mode: 'form', message: 'Notify the watchers?', requestedSchema: CONFIRM_SCHEMA }),
        },
        requestState: await codec.mint({ tool: 'ask_two' }, ctx),
      });
    },
  );

  // Round 1 asks details; round 2 asks confirm, carrying round 1's answer in the (signed) requestState.
  server.registerTool(
    'ask_rounds',
    { description: 'Asks over two rounds (details, then confirm).', inputSchema: titleArgs },
    async ({ title }, ctx) => {
      const state = ctx.mcpReq.requestState();
      const details = inputResponse(ctx.mcpReq.inputResponses, 'details');
      const confirm = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (state?.round === 2 && confirm.kind === 'elicit')
        return echo('ask_rounds', era, { details: state.details, confirm: received(confirm) }, { rounds: 2 });
      if (details.kind === 'elicit') {
        if (details.action !== 'accept') return echo('ask_rounds', era, { details: received(details) }, { rounds: 1 });
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              mode: 'form',
              message: `Create it in ${String(details.content?.repo)}?`,
              requestedSchema: CONFIRM_SCHEMA,
            }),
          },
          requestState: await codec.mint({ tool: 'ask_rounds', round: 2, details: received(details) }, ctx),
        });
      }
      return inputRequired({
        inputRequests: {
          details: inputRequired.elicit({
            mode: 'form',
            message: `Where should "${title ?? 'the issue'}" go?`,
            requestedSchema: FORM_SCHEMA,
          }),
        },
        requestState: await codec.mint({ tool: 'ask_rounds', round: 1 }, ctx),
      });
    },
  );

  // SEP-2243: calls must carry `Mcp-Param-Region` mirroring `region` (the HTTP entry refuses them with -32020 otherwise).
  server.registerTool(
    'region_echo',
    {
      description: 'Echoes its region, which every modern HTTP call mirrors into the Mcp-Param-Region header.',
      inputSchema: fromJsonSchema({
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
        required: ['region'],
      }),
    },
    async ({ region }) => echo('region_echo', era, {}, { text: region }),
  );

  // A prompt and a resource that ask first (2026-07-28 allows input_required on prompts/get and resources/read).
  server.registerPrompt(
    'plain_prompt',
    { description: 'Never asks.', argsSchema: z.object({ topic: z.string().optional() }) },
    async ({ topic }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Tell me about ${topic ?? 'nothing'}.` } }],
    }),
  );
  server.registerPrompt(
    'ask_prompt',
    { description: 'Asks which repository the prompt is about.', argsSchema: z.object({ topic: z.string().optional() }) },
    async ({ topic }, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'details');
      if (view.kind !== 'elicit') {
        return inputRequired({
          inputRequests: {
            details: inputRequired.elicit({
              mode: 'form',
              message: `Which repository is "${topic ?? 'the prompt'}" about?`,
              requestedSchema: FORM_SCHEMA,
            }),
          },
          requestState: await codec.mint({ prompt: 'ask_prompt' }, ctx),
        });
      }
      return {
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: JSON.stringify({ prompt: 'ask_prompt', era, received: { details: received(view) } }) },
          },
        ],
      };
    },
  );
  server.registerResource(
    'plain_resource',
    'mcpx-fixture://plain',
    { mimeType: 'text/plain', description: 'Never asks.' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'plain contents' }],
    }),
  );
  server.registerResource(
    'ask_resource',
    'mcpx-fixture://ask',
    { mimeType: 'application/json', description: 'Asks for a confirmation before it is read.' },
    async (uri, ctx) => {
      const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
      if (view.kind !== 'elicit') {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              mode: 'form',
              message: 'Read the secret resource?',
              requestedSchema: CONFIRM_SCHEMA,
            }),
          },
          requestState: await codec.mint({ resource: uri.href }, ctx),
        });
      }
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify({ resource: uri.href, era, received: { confirm: received(view) } }),
          },
        ],
      };
    },
  );

  return server;
}

/** Node http server: modern requests go to the per-request handler; legacy ones to sessionful transports (legacy elicitation needs a session). */
export function createDualEraHttpServer({ extend = (server) => server, ...options } = {}) {
  const factory = ({ era }) => extend(createDualEraServer({ ...options, era }), era);
  const modern = toNodeHandler(createMcpHandler(factory, { legacy: 'reject' }));
  const sessions = new Map();

  const handle = async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/mcp') {
      res.writeHead(404).end('not found: the MCP endpoint is /mcp');
      return;
    }
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    const legacy = typeof sessionId === 'string' || (await isLegacyRequest(await toWebRequest(req, body ?? {}), body ?? {}));
    if (!legacy) return modern(req, res, body);

    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (typeof sessionId === 'string' || body?.method !== 'initialize') {
        res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'unknown or missing session' },
            id: body?.id ?? null,
          }),
        );
        return;
      }
      transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await factory({ era: 'legacy' }).connect(transport);
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

async function main(argv) {
  if (process.env.MCPX_FIXTURE_SPAWN_LOG)
    appendFileSync(process.env.MCPX_FIXTURE_SPAWN_LOG, `dual-era ${process.pid} ${argv.join(' ')}\n`);
  if (argv.includes('--http')) {
    const host = argValue(argv, '--host', '127.0.0.1');
    const server = createDualEraHttpServer();
    server.listen(Number(argValue(argv, '--port', '0')), host, () => {
      process.stdout.write(`http://${host}:${server.address().port}/mcp\n`);
    });
    const stop = () => {
      server.close(() => process.exit(0));
      // Idle keep-alive sockets would hold close() open for seconds.
      server.closeAllConnections();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    return;
  }
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(({ era }) => createDualEraServer({ era }), {
    onerror: (error) => process.stderr.write(`dual-era: ${error.message}\n`),
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`dual-era: ${error?.stack ?? error}\n`);
    process.exit(1);
  });
}
