/**
 * `mcpx serve` (the built CLI) keeps a subscriber's view from going stale across a gap upstream: a change an upstream
 * makes while mcpx is not listening (a modern upstream ended its listen stream; a legacy upstream's process died,
 * taking its subscriptions along) is told to nobody, so once mcpx listens (or subscribes) again it tells every client
 * subscribed to that URI, once, that the resource may have changed; a client not subscribed hears nothing.
 */
import { join, resolve } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it, vi } from 'vitest';
import { serveSetup, startHttpServe, stdioServe, textOf, type HttpServeProcess, type ServeSetup } from '../helpers/serve.js';
import { useConformanceSetup, useHttpServe } from '../helpers/serve-hooks.js';

const landed = (check: () => void | Promise<void>) => vi.waitFor(check, { timeout: 15_000, interval: 20 });

interface Subscriber {
  updated: string[];
  /** legacy: resources/subscribe; modern: a subscriptions/listen stream naming the URI. */
  subscribe(uri: string): Promise<void>;
  /** Calls a tool of the upstream (through serve) and gives its text. */
  call(name: string): Promise<string>;
  close(): Promise<void>;
}

type Kind = 'v1' | 'v2-legacy' | 'v2-modern';

async function connect(kind: Kind, over: { url: string } | { setup: ServeSetup }): Promise<Subscriber> {
  const updated: string[] = [];
  if (kind === 'v1') {
    const client = new V1Client({ name: 'v1', version: '1.0.0' });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    const transport = 'url' in over ? new V1Http(new URL(over.url)) : new V1Stdio(stdioServe(over.setup));
    await client.connect(transport);
    return {
      updated,
      subscribe: async (uri) => void (await client.subscribeResource({ uri })),
      call: async (name) => textOf((await client.callTool({ name, arguments: {} })) as Record<string, unknown>),
      close: async () => {
        if (transport instanceof V1Http && transport.sessionId) await transport.terminateSession().catch(() => undefined);
        await client.close();
      },
    };
  }
  const client = new Client(
    { name: kind, version: '1.0.0' },
    { versionNegotiation: { mode: kind === 'v2-modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
  const transport =
    'url' in over ? new StreamableHTTPClientTransport(new URL(over.url)) : new StdioClientTransport(stdioServe(over.setup));
  await client.connect(transport);
  return {
    updated,
    subscribe: async (uri) => {
      if (kind === 'v2-legacy') return void (await client.subscribeResource({ uri }));
      const listening = await client.listen({ resourceSubscriptions: [uri] });
      expect(listening.honoredFilter.resourceSubscriptions).toEqual([uri]);
    },
    call: async (name) => textOf((await client.callTool({ name, arguments: {} })) as Record<string, unknown>),
    close: () => client.close(),
  };
}

describe('mcpx serve: a modern upstream that ends its listen stream and changes the resource before the re-listen', () => {
  const uri = 'test://watched-resource';
  const setup = useConformanceSetup((url) => ({ m: { url, era: 'modern' } }));

  describe('over Streamable HTTP', () => {
    const serve = useHttpServe(setup);

    it('tells each subscribed client (v1, v2 legacy, v2 modern) once after listening again, and a bystander nothing', async () => {
      const [old, legacy, modern, bystander] = await Promise.all([
        connect('v1', serve),
        connect('v2-legacy', serve),
        connect('v2-modern', serve),
        connect('v2-modern', serve),
      ]);
      try {
        await Promise.all([old.subscribe(uri), legacy.subscribe(uri), modern.subscribe(uri)]);
        // The upstream drops mcpx's one listen stream on the URI and changes the resource while none is open.
        expect(await bystander.call('test_change_watched_between_listens')).toBe('ended: 1');
        await landed(() => {
          expect(old.updated).toEqual([uri]);
          expect(legacy.updated).toEqual([uri]);
          expect(modern.updated).toEqual([uri]);
        });
        // Listening again: the next change reaches them as before, one update each (not one per gap and change).
        expect(await bystander.call('test_update_watched_resource')).toBe('notified: true');
        await landed(() => {
          expect(old.updated).toEqual([uri, uri]);
          expect(legacy.updated).toEqual([uri, uri]);
          expect(modern.updated).toEqual([uri, uri]);
        });
        expect(bystander.updated).toEqual([]);
      } finally {
        await Promise.all([old.close(), legacy.close(), modern.close(), bystander.close()]);
      }
    });
  });

  it('over stdio: a v2 modern client hears of it on its listen stream', async () => {
    const client = await connect('v2-modern', { setup });
    try {
      await client.subscribe(uri);
      expect(await client.call('test_change_watched_between_listens')).toBe('ended: 1');
      await landed(() => expect(client.updated).toEqual([uri]));
      expect(await client.call('test_update_watched_resource')).toBe('notified: true');
      await landed(() => expect(client.updated).toEqual([uri, uri]));
    } finally {
      await client.close();
    }
  });
});

/**
 * Two subscribers (v1 and v2 modern) and a bystander on `serve`: a change (`touch`) reaches the subscribers; after
 * `gap` (the upstream loses its subscription) each hears of the URI once; the upstream's later changes reach them
 * again, which shows it was subscribed again; the bystander hears nothing.
 */
async function acrossGap(
  serve: HttpServeProcess,
  uri: string,
  steps: { touch: [tool: string, reply: string]; gap: [tool: string, reply: string] },
): Promise<void> {
  const [old, modern, bystander] = await Promise.all([
    connect('v1', serve),
    connect('v2-modern', serve),
    connect('v2-modern', serve),
  ]);
  const heard = (times: number) => () => {
    expect(old.updated).toEqual(Array(times).fill(uri));
    expect(modern.updated).toEqual(Array(times).fill(uri));
  };
  try {
    await Promise.all([old.subscribe(uri), modern.subscribe(uri)]);
    expect(await bystander.call(steps.touch[0])).toBe(steps.touch[1]);
    await landed(heard(1));
    expect(await bystander.call(steps.gap[0])).toBe(steps.gap[1]);
    await landed(heard(2));
    expect(await bystander.call(steps.touch[0])).toBe(steps.touch[1]);
    await landed(heard(3));
    expect(bystander.updated).toEqual([]);
  } finally {
    await Promise.all([old.close(), modern.close(), bystander.close()]);
  }
}

describe('mcpx serve: a legacy upstream whose process dies takes its subscriptions along', () => {
  const FIXTURE = join(resolve(import.meta.dirname, '..'), 'fixtures', 'servers', 'resources.mjs');
  const watched = 'test://stdio-watched';

  it('connects again, subscribes again, and tells each subscribed client once (a bystander nothing)', async () => {
    const local = serveSetup({ watched: { command: process.execPath, args: [FIXTURE], era: 'legacy' } });
    const serve = await startHttpServe(local);
    try {
      // The upstream exits: the resource may change before (or as) it comes back, and its subscription is gone.
      await acrossGap(serve, watched, { touch: ['touch_watched', 'notified: true'], gap: ['exit_watched', 'exiting'] });
    } finally {
      await serve.close();
    }
  });
});

describe('mcpx serve: a legacy Streamable HTTP upstream that forgets its sessions (a restart)', () => {
  const setup = useConformanceSetup((url) => ({ l: { url, era: 'legacy' } }));
  const serve = useHttpServe(setup);

  it('opens a new session, subscribes again, and tells each subscribed client once (a bystander nothing)', async () => {
    // The upstream forgets mcpx's session, and its subscription with it.
    await acrossGap(serve, 'test://watched-resource', {
      touch: ['test_update_watched_resource', 'notified: true'],
      gap: ['test_end_legacy_sessions', 'ending'],
    });
  });
});
