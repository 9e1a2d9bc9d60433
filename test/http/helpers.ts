/** Reads a server-sent event stream one event at a time. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

export function readSse(response: Pick<Response, 'body'>): { next(): Promise<SseEvent>; close(): Promise<void> } {
  if (!response.body) throw new Error('the response has no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = { event: 'message', data: '' };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') event.event = value;
            else if (field === 'data') data.push(value);
            else if (field === 'id') event.id = value;
          }
          if (!data.length && event.event === 'message') continue;
          event.data = data.join('\n');
          return event;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the event stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    },
    async close() {
      await reader.cancel().catch(() => undefined);
    },
  };
}
