/**
 * `mcpx serve --http` (the built CLI) relays what is not a call's result: a call's progress (under the client's own
 * token) and log messages (at the level the client asked for), completions, and resource subscriptions. The upstream
 * is the real conformance fixture, spoken legacy (`l`, listed first: its resources are the served ones) and modern
 * (`m`); the clients are the v2 SDK (both eras) and the v1 SDK (legacy).
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveSetup, startConformanceFixture, startHttpServe, textOf, type HttpServeProcess } from '../helpers/serve.js';

let fixture: { url: string; stop(): void };
let serve: HttpServeProcess;
beforeAll(async () => {
  fixture = await startConformanceFixture();
  serve = await startHttpServe(serveSetup({ l: { url: fixture.url, era: 'legacy' }, m: { url: fixture.url, era: 'modern' } }));
});
afterAll(async () => {
  await serve?.close();
  fixture?.stop();
});

type Logged = { level: string; data: unknown };
type OnProgress = (p: { progress: number }) => void;

/**
 * Progress read off the wire by token, not through the SDKs' `onprogress`: both SDK clients drop a progress
 * notification that reaches them in the same read as its request's response (typescript-sdk#2580).
 */
function progressByToken() {
  const listeners = new Map<string, OnProgress>();
  let calls = 0;
  return {
    deliver: (params: { progressToken: unknown; progress: number }) => listeners.get(String(params.progressToken))?.(params),
    /** `{_meta}` with `extra` and a fresh token whose notifications go to `onprogress`; none when both are absent. */
    meta: (onprogress?: OnProgress, extra: Record<string, unknown> = {}): { _meta?: Record<string, unknown> } => {
      if (!onprogress) return Object.keys(extra).length ? { _meta: extra } : {};
      const token = `call-${++calls}`;
      listeners.set(token, onprogress);
      return { _meta: { ...extra, progressToken: token } };
    },
  };
}

/** A client of the serve that records the log messages it gets. */
async function connect(kind: 'v1' | 'v2-legacy' | 'v2-modern') {
  const logs: Logged[] = [];
  if (kind === 'v1') {
    const client = new V1Client({ name: 'v1', version: '1.0.0' });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params as Logged));
    const progress = progressByToken();
    client.setNotificationHandler(ProgressNotificationSchema, (n) => progress.deliver(n.params));
    const transport = new V1Transport(new URL(serve.url));
    await client.connect(transport);
    return {
      logs,
      setLevel: (level: 'debug' | 'warning') => client.setLoggingLevel(level),
      call: (name: string, onprogress?: OnProgress) => client.callTool({ name, arguments: {}, ...progress.meta(onprogress) }),
      request: async (_method: string, _params: Record<string, unknown>): Promise<Record<string, unknown>> => {
        throw new Error('raw requests: the v2 clients only');
      },
      listen: async (_uris: string[]): Promise<{ close(): Promise<void> }> => {
        throw new Error('subscriptions/listen: the modern client only');
      },
      terminate: async () => {
        await transport.terminateSession();
        await client.close();
      },
      close: () => client.close(),
    };
  }
  const client = new Client(
    { name: 'v2', version: '1.0.0' },
    { versionNegotiation: { mode: kind === 'v2-modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params as Logged));
  const progress = progressByToken();
  client.setNotificationHandler('notifications/progress', (n) => progress.deliver(n.params));
  const updated: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
  const transport = new StreamableHTTPClientTransport(new URL(serve.url));
  await client.connect(transport);
  // 2026-07-28 has no logging/setLevel: each request names the level it wants in its _meta.
  const modern = kind === 'v2-modern';
  let level: string | undefined;
  return {
    logs,
    updated,
    setLevel: async (wanted: 'debug' | 'warning') => {
      if (modern) level = wanted;
      else await client.setLoggingLevel(wanted);
    },
    call: (name: string, onprogress?: OnProgress) =>
      client.callTool({
        name,
        arguments: {},
        ...progress.meta(onprogress, level ? { [LOG_LEVEL_META_KEY]: level } : {}),
      }),
    request: (method: string, params: Record<string, unknown>) =>
      client.request({ method, params } as never) as Promise<Record<string, unknown>>,
    /** A modern client's subscriptions: a listen stream naming the URIs. */
    listen: (uris: string[]) => client.listen({ resourceSubscriptions: uris }),
    /** Ends the session (DELETE), as a client that leaves for good does. */
    terminate: async () => {
      await transport.terminateSession();
      await client.close();
    },
    close: () => client.close(),
  };
}

describe('mcpx serve relays progress, log messages, completions and subscriptions', () => {
  for (const kind of ['v1', 'v2-legacy', 'v2-modern'] as const) {
    for (const upstream of ['m', 'l'] as const) {
      it(`progress reaches a ${kind} client under its own token, only for its own call (${upstream === 'm' ? 'modern' : 'legacy'} upstream)`, async () => {
        const client = await connect(kind);
        try {
          const a: number[] = [];
          const b: number[] = [];
          // Two calls at once on one upstream connection: each gets its own progress, none of the other's.
          await Promise.all([
            client.call(`${upstream}__test_tool_with_progress`, (p) => a.push(p.progress)),
            client.call(`${upstream}__test_tool_with_progress`, (p) => b.push(p.progress)),
          ]);
          expect(a).toEqual([0, 50, 100]);
          expect(b).toEqual([0, 50, 100]);
        } finally {
          await client.close();
        }
      });

      it(`log messages reach a ${kind} client at the level it set, and not below it (${upstream === 'm' ? 'modern' : 'legacy'} upstream)`, async () => {
        const client = await connect(kind);
        try {
          await client.setLevel('debug');
          await client.call(`${upstream}__test_tool_with_logging`);
          expect(client.logs.map((l) => l.data)).toEqual([
            'Tool execution started',
            'Tool processing data',
            'Tool execution completed',
          ]);
          expect(client.logs.every((l) => l.level === 'info')).toBe(true);
          // info is below warning: none of the next call's messages come through.
          await client.setLevel('warning');
          await client.call(`${upstream}__test_tool_with_logging`);
          expect(client.logs).toHaveLength(3);
        } finally {
          await client.close();
        }
      });
    }
  }

  it('sends a modern client no log messages when its requests ask for no level', async () => {
    const client = await connect('v2-modern');
    try {
      await client.call('m__test_tool_with_logging');
      expect(client.logs).toEqual([]);
    } finally {
      await client.close();
    }
  });

  for (const kind of ['v2-legacy', 'v2-modern'] as const) {
    it(`completes a served prompt's argument through the upstream that has it (${kind})`, async () => {
      const client = await connect(kind);
      try {
        const result = await client.request('completion/complete', {
          ref: { type: 'ref/prompt', name: 'm__test_prompt_with_arguments' },
          argument: { name: 'arg1', value: 'par' },
        });
        expect((result.completion as { values: string[] }).values).toEqual(['paris', 'park', 'party']);
        await expect(
          client.request('completion/complete', {
            ref: { type: 'ref/prompt', name: 'no_such_prompt' },
            argument: { name: 'arg1', value: 'x' },
          }),
        ).rejects.toThrow(/Unknown prompt: no_such_prompt/);
      } finally {
        await client.close();
      }
    });
  }

  it('takes a legacy client subscription to a served resource, and refuses one to a resource nobody serves', async () => {
    const client = await connect('v2-legacy');
    try {
      expect(await client.request('resources/subscribe', { uri: 'test://watched-resource' })).toEqual({});
      expect(await client.request('resources/unsubscribe', { uri: 'test://watched-resource' })).toEqual({});
      await expect(client.request('resources/subscribe', { uri: 'test://nowhere' })).rejects.toThrow(
        /Resource not found: test:\/\/nowhere/,
      );
    } finally {
      await client.close();
    }
  });

  it("relays the upstream's resource updates to the clients subscribed, subscribing upstream for the first and unsubscribing after the last", async () => {
    const uri = 'test://watched-resource';
    const [a, b, c] = await Promise.all([connect('v2-legacy'), connect('v2-legacy'), connect('v2-legacy')]);
    const change = async () => textOf((await c.call('l__test_update_watched_resource')) as Record<string, unknown>);
    // Updates reach a and b on their own streams, after c's call returns: wait for them to land.
    const landed = (check: () => void) => vi.waitFor(check, { timeout: 10_000, interval: 20 });
    try {
      expect(await change()).toBe('notified: false');
      await a.request('resources/subscribe', { uri });
      await b.request('resources/subscribe', { uri });
      expect(await change()).toBe('notified: true');
      await landed(() => {
        expect(a.updated).toEqual([uri]);
        expect(b.updated).toEqual([uri]);
      });
      expect(c.updated).toEqual([]);
      // a goes; b still watches, so the upstream stays subscribed.
      await a.request('resources/unsubscribe', { uri });
      expect(await change()).toBe('notified: true');
      await landed(() => expect(b.updated).toEqual([uri, uri]));
      expect(a.updated).toEqual([uri]);
      // The last watcher leaves by ending its session: the upstream is unsubscribed.
      await b.terminate();
      await landed(async () => expect(await change()).toBe('notified: false'));
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it("relays a legacy upstream's resource updates to a modern client on its listen stream, until it closes it", async () => {
    const uri = 'test://watched-resource';
    const [modern, c] = await Promise.all([connect('v2-modern'), connect('v2-legacy')]);
    const change = async () => textOf((await c.call('l__test_update_watched_resource')) as Record<string, unknown>);
    const landed = (check: () => void | Promise<void>) => vi.waitFor(check, { timeout: 10_000, interval: 20 });
    try {
      const listening = await modern.listen([uri]);
      expect(await change()).toBe('notified: true');
      await landed(() => expect(modern.updated).toEqual([uri]));
      expect(c.updated).toEqual([]);
      await listening.close();
      await landed(async () => expect(await change()).toBe('notified: false'));
      expect(modern.updated).toEqual([uri]);
    } finally {
      await Promise.all([modern.close(), c.close()]);
    }
  });
});
