/**
 * A fake Anthropic Messages API on loopback, for running the real Claude Code headless and offline: it streams the
 * server-sent events Claude Code reads, and plays a model that calls one MCP tool (ToolSearch first: MCP tools are
 * deferred), then ends its turn. Every request body is kept, so a test reads the tool's result as Claude Code sent it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Block {
  type: string;
  tool_use_id?: string;
  content?: unknown;
  [key: string]: unknown;
}
interface Message {
  role: string;
  content: string | Block[];
}
export interface MessagesRequest {
  model?: string;
  messages: Message[];
  tools?: Array<{ name: string }>;
}

export interface FakeMessagesApi {
  url: string;
  requests: MessagesRequest[];
  /** The text of the MCP tool's result (the fixture's echo, with `received`), once Claude Code sent it to the model. */
  toolResult(): string | undefined;
  close(): Promise<void>;
}

type Reply = { text: string } | { tool: string; input: Record<string, unknown> };

const blocksOf = (message: Message | undefined): Block[] =>
  !message || typeof message.content === 'string' ? [] : message.content;

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: string }) => part.text ?? '').join('')
      : '';

/** The model: ToolSearch for the tool, then the tool with `input`, then a closing text. */
function replyTo(request: MessagesRequest, tool: string, input: Record<string, unknown>): Reply {
  if (!request.tools?.some((t) => t.name === 'ToolSearch')) return { text: 'ok' };
  const results = request.messages.flatMap((m) => blocksOf(m).filter((b) => b.type === 'tool_result'));
  if (results.length === 0) return { tool: 'ToolSearch', input: { query: `select:${tool}` } };
  if (results.length === 1) return { tool, input };
  return { text: 'done' };
}

function events(reply: Reply, n: number): string {
  const block =
    'text' in reply
      ? { start: { type: 'text', text: '' }, delta: { type: 'text_delta', text: reply.text } }
      : {
          start: { type: 'tool_use', id: `toolu_fake${n}`, name: reply.tool, input: {} },
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.input) },
        };
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = {
    id: `msg_fake${n}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-fake',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  const sequence: Array<[string, unknown]> = [
    ['message_start', { type: 'message_start', message }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: block.start }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: block.delta }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: 'text' in reply ? 'end_turn' : 'tool_use', stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ];
  return sequence.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

/** Starts the fake; the model calls `tool` (e.g. `mcp__asker__ask_form`) with `input`. */
export async function startFakeMessagesApi(tool: string, input: Record<string, unknown>): Promise<FakeMessagesApi> {
  const requests: MessagesRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"type":"error","error":{"type":"not_found_error","message":"fake"}}');
        return;
      }
      const request = JSON.parse(body) as MessagesRequest;
      requests.push(request);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(events(replyTo(request, tool, input), requests.length));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    toolResult() {
      for (const request of requests)
        for (const message of request.messages)
          for (const block of blocksOf(message))
            if (block.type === 'tool_result' && textOf(block.content).includes('"received"')) return textOf(block.content);
      return undefined;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
