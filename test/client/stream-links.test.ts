/**
 * The fetch wrapper that reads Streamable HTTP response streams as they pass: events split across chunks, CRLF
 * line ends, bytes passed on untouched, and nothing linked without a progress token of ours.
 */
import { describe, expect, it } from 'vitest';
import { createStreamLinks } from '../../src/client/stream-links.js';

const encoder = new TextEncoder();

function sseResponse(chunks: string[]): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

const callBody = (progressToken: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 't', _meta: { progressToken } } });
const question = (id: number): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'elicitation/create', params: { message: 'q' } });

describe('createStreamLinks', () => {
  it("passes a JSON answer on without touching its body (a whole answer's stream is built only when read)", async () => {
    const answer = new Response('{"jsonrpc":"2.0","id":3,"result":{}}', { headers: { 'content-type': 'application/json' } });
    let bodyRead = false;
    const watched = new Proxy(answer, {
      get: (target, key) => {
        if (key === 'body') bodyRead = true;
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const links = createStreamLinks(async () => watched);
    const response = await links.fetch('http://x/mcp', { method: 'POST', body: callBody('cal-0123456789abcdef/1') });
    expect(response).toBe(watched);
    expect(bodyRead).toBe(false);
  });

  it('links a question to the call whose stream carried it, even split across chunks, and passes every byte on', async () => {
    const event = `event: message\r\nid: 1\r\ndata: ${question(7)}\r\n\r\n`;
    const chunks = [
      event.slice(0, 40),
      event.slice(40, 41),
      event.slice(41),
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: 3, result: {} })}\n\n`,
    ];
    const links = createStreamLinks(async () => sseResponse(chunks));
    const response = await links.fetch('http://x/mcp', { method: 'POST', body: callBody('cal-0123456789abcdef/1') });
    expect(await response.text()).toBe(chunks.join(''));
    expect(links.take(7)).toBe('cal-0123456789abcdef/1');
    // Read once: the entry is gone.
    expect(links.take(7)).toBeUndefined();
    // Responses and other messages are not linked.
    expect(links.take(3)).toBeUndefined();
  });

  it('links nothing for a request without a string progress token (the SDK numbers its own)', async () => {
    const links = createStreamLinks(async () => sseResponse([`data: ${question(0)}\n\n`]));
    const response = await links.fetch('http://x/mcp', { method: 'POST', body: callBody(0) });
    await response.text();
    expect(links.take(0)).toBeUndefined();
  });

  it('hands a JSON response back as it came', async () => {
    const json = new Response('{"jsonrpc":"2.0","id":3,"result":{}}', { headers: { 'content-type': 'application/json' } });
    const links = createStreamLinks(async () => json);
    expect(await links.fetch('http://x/mcp', { method: 'POST', body: callBody('cal-0123456789abcdef/2') })).toBe(json);
  });
});
