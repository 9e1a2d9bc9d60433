/**
 * The three kinds of upstream request `mcpx serve` runs as calls (tool, prompt, resource), and how each takes
 * the shape of its request when it fails or falls back to the §5.1 text: only a tool has an error result.
 */
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type InputRequiredResult } from '@modelcontextprotocol/server';
import { failedResult } from './render.js';

/** What a served call is upstream: a tools/call, a prompts/get or a resources/read. */
export type Kind = 'tool' | 'prompt' | 'resource';
/** What a served call answers: a tool result, input_required, or a prompt's or resource's result. */
export type Served = CallToolResult | InputRequiredResult | Record<string, unknown>;
/** The method a kind is called with upstream (a tool call names none: it is the default). */
export const METHODS: Record<Kind, 'prompts/get' | 'resources/read' | undefined> = {
  tool: undefined,
  prompt: 'prompts/get',
  resource: 'resources/read',
};

/**
 * A call refused for a client capability the upstream needs is the same refusal here (-32021). Anything else is a
 * tool error for a tool; a prompt or resource has no error result, so it is a JSON-RPC error: the upstream's own
 * (code, message and data as it gave them: a resource-not-found's `data.uri`), or one naming the server when mcpx
 * itself failed (no connection, a timeout, a lost lease).
 */
export function failedOrThrow(
  kind: Kind,
  task: { server: string; tool: string },
  error: { code: string; message: string; data?: Record<string, unknown> },
): CallToolResult {
  if (error.data?.code === -32021) {
    throw new ProtocolError(-32021 as ProtocolErrorCode, error.message, {
      requiredCapabilities: error.data.requiredCapabilities ?? {},
    });
  }
  if (kind !== 'tool') {
    const upstream = error.data;
    if (typeof upstream?.code === 'number' && typeof upstream.upstreamMessage === 'string')
      throw new ProtocolError(upstream.code as ProtocolErrorCode, upstream.upstreamMessage, upstream.upstreamData);
    const code = typeof error.data?.code === 'number' ? (error.data.code as ProtocolErrorCode) : ProtocolErrorCode.InternalError;
    throw new ProtocolError(code, `mcpx: ${task.server} ${kind} ${task.tool} failed (${error.code}): ${error.message}`);
  }
  return failedResult(task, error);
}

/** The fallback text in the shape of the request: a tool result, a prompt's one message, or a resource's text. */
export function asKind(kind: Kind, result: CallToolResult, name: string): Served {
  if (kind === 'tool') return result;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  if (kind === 'prompt')
    return { messages: [{ role: 'user', content: { type: 'text', text } }], ...(result._meta ? { _meta: result._meta } : {}) };
  return { contents: [{ uri: name, mimeType: 'text/plain', text }], ...(result._meta ? { _meta: result._meta } : {}) };
}
