#!/usr/bin/env node
/**
 * Fixture: a legacy-only MCP server on the v1 SDK (`@modelcontextprotocol/sdk`, protocol <= 2025-11-25), like most
 * servers in the wild. Same tools as dual-era.mjs, asked the v1 way: `elicitInput` while `tools/call` stays open.
 * Every asking tool answers with what it RECEIVED, so tests can assert decline vs cancel.
 *
 *   node examples/servers/legacy-v1.mjs --stdio
 *   node examples/servers/legacy-v1.mjs --http [--port 0] [--host 127.0.0.1]   # prints its URL on one stdout line
 *
 * Env: MCPX_FIXTURE_ELICIT_TIMEOUT_MS (how long the server waits for an answer; default 600000: a v1 server's own
 *      default is 60 s, shorter than mcpx's 120 s question deadline), MCPX_FIXTURE_SPAWN_LOG (one line per start),
 *      MCPX_FIXTURE_LINK (comma-separated; how a question names the call it serves, as some v1 servers do:
 *      `stream` = sent with relatedRequestId, like `extra.sendRequest`, so HTTP carries it on the call's response
 *      stream; `token` = the call's progressToken echoed in the question's `_meta`; default none).
 */
import { appendFileSync } from 'node:fs';
import { clearInterval, setInterval } from 'node:timers';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const FIXTURE_URL = 'https://example.com/mcpx-fixture/authorize';
const FORM_SCHEMA = {
  type: 'object',
  properties: {
    repo: { type: 'string', title: 'Repository', description: 'owner/name', minLength: 3 },
    private: { type: 'boolean', title: 'Private', default: false },
    priority: { type: 'string', title: 'Priority', enum: ['low', 'normal', 'high'], default: 'normal' },
  },
  required: ['repo'],
};
const CONFIRM_SCHEMA = { type: 'object', properties: { confirm: { type: 'boolean', title: 'Proceed?' } }, required: ['confirm'] };

function received(result) {
  return result.content === undefined ? { action: result.action } : { action: result.action, content: result.content };
}

function echo(tool, answers, extra = {}) {
  const structuredContent = { tool, era: 'legacy', received: answers, ...extra };
  return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
}

/** One v1 server instance (one per stdio process or HTTP session). */
export function createLegacyServer({
  elicitTimeoutMs = Number(process.env.MCPX_FIXTURE_ELICIT_TIMEOUT_MS || 600_000),
  link = (process.env.MCPX_FIXTURE_LINK || '').split(','),
} = {}) {
  const server = new McpServer(
    { name: 'mcpx-fixture-legacy-v1', version: '1.0.0' },
    { capabilities: { tools: {}, prompts: {}, resources: {} } },
  );
  const ask = (params, extra) => {
    const token = extra?._meta?.progressToken;
    const linked = link.includes('token') && token !== undefined ? { ...params, _meta: { progressToken: token } } : params;
    return server.server.elicitInput(linked, {
      timeout: elicitTimeoutMs,
      ...(link.includes('stream') && extra ? { relatedRequestId: extra.requestId } : {}),
    });
  };
  const form = (message, extra) => ask({ mode: 'form', message, requestedSchema: FORM_SCHEMA }, extra);
  const confirm = (message, extra) => ask({ mode: 'form', message, requestedSchema: CONFIRM_SCHEMA }, extra);

  server.registerTool(
    'no_ask',
    { description: 'Never asks: echoes its text.', inputSchema: { text: z.string().optional() } },
    async ({ text }) => echo('no_ask', {}, { text: text ?? '' }),
  );
  server.registerTool(
    'sleep',
    {
      description: 'Never asks: answers after ms milliseconds, reporting progress every progressEveryMs if given.',
      inputSchema: { ms: z.number().int().min(0), progressEveryMs: z.number().int().min(1).optional() },
    },
    async ({ ms, progressEveryMs }, extra) => {
      const token = extra._meta?.progressToken;
      let sent = 0;
      const ticker =
        progressEveryMs && token !== undefined
          ? setInterval(
              () =>
                void extra.sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken: token, progress: ++sent },
                }),
              progressEveryMs,
            )
          : undefined;
      await new Promise((resolve) => setTimeout(resolve, ms));
      clearInterval(ticker);
      return echo('sleep', {}, { text: `slept ${ms} ms` });
    },
  );
  server.registerTool(
    'ask_form',
    { description: 'Asks one form question (repo, private, priority).', inputSchema: { title: z.string().optional() } },
    async ({ title }, extra) =>
      echo('ask_form', { details: received(await form(`Where should "${title ?? 'the issue'}" go?`, extra)) }),
  );
  server.registerTool(
    'ask_confirm',
    { description: 'Asks for a confirmation (yes/no).', inputSchema: { action: z.string().optional() } },
    async ({ action }, extra) =>
      echo('ask_confirm', { confirm: received(await confirm(`Really ${action ?? 'proceed'}?`, extra)) }),
  );
  server.registerTool(
    'ask_url',
    { description: 'Asks the user to open a URL (url mode).', inputSchema: {} },
    async (_args, extra) =>
      echo('ask_url', {
        authorize: received(
          await ask(
            { mode: 'url', message: 'Authorize the fixture in your browser.', url: FIXTURE_URL, elicitationId: randomUUID() },
            extra,
          ),
        ),
      }),
  );
  server.registerTool(
    'ask_two',
    { description: 'Asks two questions at once (details and confirm).', inputSchema: { title: z.string().optional() } },
    async ({ title }, extra) => {
      const [details, ok] = await Promise.all([
        form(`Where should "${title ?? 'the issue'}" go?`, extra),
        confirm('Notify the watchers?', extra),
      ]);
      return echo('ask_two', { details: received(details), confirm: received(ok) });
    },
  );
  server.registerTool(
    'ask_rounds',
    { description: 'Asks over two rounds (details, then confirm).', inputSchema: { title: z.string().optional() } },
    async ({ title }, extra) => {
      const details = await form(`Where should "${title ?? 'the issue'}" go?`, extra);
      if (details.action !== 'accept') return echo('ask_rounds', { details: received(details) }, { rounds: 1 });
      const ok = await confirm(`Create it in ${String(details.content?.repo)}?`, extra);
      return echo('ask_rounds', { details: received(details), confirm: received(ok) }, { rounds: 2 });
    },
  );
  // A prompt and a resource that ask while their request is open (legacy elicitation works during any request).
  server.registerPrompt(
    'ask_prompt',
    { description: 'Asks which repository the prompt is about.', argsSchema: { topic: z.string().optional() } },
    async ({ topic }, extra) => {
      const details = await form(`Which repository is "${topic ?? 'the prompt'}" about?`, extra);
      return {
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: JSON.stringify({ prompt: 'ask_prompt', era: 'legacy', received: { details: received(details) } }),
            },
          },
        ],
      };
    },
  );
  server.registerResource(
    'ask_resource',
    'mcpx-fixture://ask',
    { mimeType: 'application/json', description: 'Asks for a confirmation before it is read.' },
    async (uri, extra) => {
      const ok = await confirm('Read the secret resource?', extra);
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify({ resource: uri.href, era: 'legacy', received: { confirm: received(ok) } }),
          },
        ],
      };
    },
  );
  return server;
}

/** Sessionful Streamable HTTP (server-to-client requests need a session on legacy HTTP). */
export function createLegacyHttpServer(options = {}) {
  const sessions = new Map();
  const handle = async (req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') {
      res.writeHead(404).end('not found: the MCP endpoint is /mcp');
      return;
    }
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (typeof sessionId === 'string' || !isInitializeRequest(body)) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'unknown or missing session' },
            id: body?.id ?? null,
          }),
        );
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await createLegacyServer(options).connect(transport);
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
    appendFileSync(process.env.MCPX_FIXTURE_SPAWN_LOG, `legacy-v1 ${process.pid} ${argv.join(' ')}\n`);
  if (argv.includes('--http')) {
    const host = argValue(argv, '--host', '127.0.0.1');
    const server = createLegacyHttpServer();
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
  await createLegacyServer().connect(new StdioServerTransport());
  // Its client is gone (stdin ended): nothing can answer a question now, so do not live on for its 600 s timer.
  process.stdin.once('end', () => process.exit(0));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`legacy-v1: ${error?.stack ?? error}\n`);
    process.exit(1);
  });
}
