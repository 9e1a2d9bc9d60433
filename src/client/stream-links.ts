/**
 * Streamable HTTP ties a server request to the call it serves: a server that sends it with `relatedRequestId`
 * (v1 `extra.sendRequest`, the v2 legacy shim) writes it on the SSE stream answering that call's POST. The SDK's
 * transport does not say which stream a message came on, so a `fetch` wrapper reads the streams as they pass and
 * records, per server request id, the progress token of the request whose POST opened the stream.
 */
import type { FetchLike } from '@modelcontextprotocol/client';

export interface StreamLinks {
  /** For the transport's `fetch` option. */
  fetch: FetchLike;
  /** The progress token of the call whose stream carried `elicitation/create` request `id`, once (the entry is dropped). */
  take(id: string | number): string | undefined;
}

/** `onNotification`: a notification (a log message) on the response stream of the request with that progress token. */
export function createStreamLinks(
  base: FetchLike = fetch,
  onNotification?: (token: string, message: Record<string, unknown>) => void,
): StreamLinks {
  const links = new Map<string | number, string>();
  const tap = (response: Response, body: unknown): Response => {
    // Only a stream can carry a call's messages: a JSON answer (most of them) is passed on without parsing the body,
    // or touching it: src/fast/node-fetch.ts's whole answer builds a stream only once `body` is read.
    if (!response.headers.get('content-type')?.includes('text/event-stream') || !response.body) return response;
    const token = progressTokenOf(body);
    if (token === undefined) return response;
    const tapped = response.body.pipeThrough(
      sseTap((message) => {
        // Only questions are looked up (and dropped once read); other server requests would pile up unread.
        if (message.method === 'elicitation/create' && (typeof message.id === 'string' || typeof message.id === 'number'))
          links.set(message.id, token);
        else if (message.method === 'notifications/message') onNotification?.(token, message);
      }),
    );
    return new Response(tapped, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return {
    fetch: async (url, init) => tap(await base(url, init), init?.body),
    take: (id) => {
      const token = links.get(id);
      links.delete(id);
      return token;
    },
  };
}

/** The string progress token of a single JSON-RPC request body (mcpx mints string tokens; numeric ones are the SDK's). */
function progressTokenOf(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const message = JSON.parse(body) as { params?: { _meta?: { progressToken?: unknown } } };
    const token = message?.params?._meta?.progressToken;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

/** Passes the bytes through untouched; each complete event's JSON data is shown to `onMessage` before it is passed on. */
function sseTap(onMessage: (message: Record<string, unknown>) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let buffer = '';
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      const events = buffer.split(/\r\n\r\n|\n\n|\r\r/);
      buffer = events.pop() ?? '';
      for (const event of events) {
        const data = event
          .split(/\r\n|\n|\r/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (!data) continue;
        try {
          const message = JSON.parse(data) as unknown;
          if (message && typeof message === 'object' && !Array.isArray(message)) onMessage(message as Record<string, unknown>);
        } catch {
          // Not JSON: the SDK reports it; nothing to link.
        }
      }
      controller.enqueue(chunk);
    },
  });
}
