/**
 * `mcpx serve` (the built CLI, over Streamable HTTP and over stdio) in front of a modern upstream (the conformance
 * fixture, 2026-07-28): a client's subscription to a resource (a legacy client's `resources/subscribe`, a modern
 * client's `subscriptions/listen`) has mcpx listen on the upstream, the upstream's changes reach exactly the clients
 * subscribed (a modern one on its own listen stream), and mcpx stops listening after the last one leaves.
 */
import { join, resolve } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, StreamableHTTPClientTransport, type McpSubscription } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it, vi } from 'vitest';
import { CLI, serveSetup, stdioServe, textOf } from '../helpers/serve.js';
import { useConformanceSetup, useHttpServe } from '../helpers/serve-hooks.js';

const uri = 'test://watched-resource';
const landed = (check: () => void | Promise<void>) => vi.waitFor(check, { timeout: 10_000, interval: 20 });

const setup = useConformanceSetup((url) => ({ m: { url, era: 'modern' } }));

interface Subscriber {
  updated: string[];
  /** legacy: resources/subscribe; modern: a subscriptions/listen stream naming the URI. */
  subscribe(): Promise<void>;
  /** legacy: resources/unsubscribe; modern: the listen stream closed. */
  unsubscribe(): Promise<void>;
  /** The fixture changes the watched resource; says whether anyone listened upstream. */
  change(): Promise<string>;
  /** Calls a tool of the fixture (through serve). */
  call(name: string): Promise<unknown>;
  close(): Promise<void>;
}

async function v2(
  kind: 'legacy' | 'modern',
  over: { url: string } | 'stdio',
): Promise<Subscriber & { terminate(): Promise<void> }> {
  const client = new Client(
    { name: 'v2', version: '1.0.0' },
    { versionNegotiation: { mode: kind === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  const updated: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
  const transport =
    over === 'stdio' ? new StdioClientTransport(stdioServe(setup)) : new StreamableHTTPClientTransport(new URL(over.url));
  await client.connect(transport);
  let listening: McpSubscription | undefined;
  return {
    updated,
    subscribe: async () => {
      if (kind === 'legacy') await client.subscribeResource({ uri });
      else {
        listening = await client.listen({ resourceSubscriptions: [uri] });
        expect(listening.honoredFilter.resourceSubscriptions).toEqual([uri]);
      }
    },
    unsubscribe: async () => {
      if (kind === 'legacy') await client.unsubscribeResource({ uri });
      else await listening?.close();
    },
    change: async () =>
      textOf((await client.callTool({ name: 'test_update_watched_resource', arguments: {} })) as Record<string, unknown>),
    call: (name) => client.callTool({ name, arguments: {} }),
    terminate: async () => {
      if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
      await client.close();
    },
    close: () => client.close(),
  };
}

async function v1(over: { url: string } | 'stdio'): Promise<Subscriber> {
  const client = new V1Client({ name: 'v1', version: '1.0.0' });
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  const transport = over === 'stdio' ? new V1Stdio(stdioServe(setup)) : new V1Http(new URL(over.url));
  await client.connect(transport);
  return {
    updated,
    subscribe: async () => void (await client.subscribeResource({ uri })),
    unsubscribe: async () => void (await client.unsubscribeResource({ uri })),
    change: async () =>
      textOf((await client.callTool({ name: 'test_update_watched_resource', arguments: {} })) as Record<string, unknown>),
    call: (name) => client.callTool({ name, arguments: {} }),
    // Over HTTP the session ends (DELETE), as a client that leaves for good does; over stdio serve exits.
    close: async () => {
      if (transport instanceof V1Http && transport.sessionId) await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

describe('mcpx serve --http: resource subscriptions on a modern upstream', () => {
  const serve = useHttpServe(setup);

  it('relays the changes to exactly the clients subscribed (legacy and modern), and stops listening upstream after the last', async () => {
    const [legacy, modern, old, bystander] = await Promise.all([
      v2('legacy', serve),
      v2('modern', serve),
      v1(serve),
      v2('modern', serve),
    ]);
    try {
      // Nobody subscribed: mcpx does not listen upstream.
      expect(await bystander.change()).toBe('notified: false');
      await legacy.subscribe();
      await modern.subscribe();
      await old.subscribe();
      expect(await bystander.change()).toBe('notified: true');
      await landed(() => {
        expect(legacy.updated).toEqual([uri]);
        expect(modern.updated).toEqual([uri]);
        expect(old.updated).toEqual([uri]);
      });
      // One change, one update each: not one per subscriber.
      expect(bystander.updated).toEqual([]);

      // The legacy client unsubscribes and the v1 one's session ends: only the modern listener hears the next change.
      await legacy.unsubscribe();
      await old.close();
      expect(await bystander.change()).toBe('notified: true');
      await landed(() => expect(modern.updated).toEqual([uri, uri]));
      expect(legacy.updated).toEqual([uri]);
      expect(old.updated).toEqual([uri]);

      // The last one closes its listen stream: mcpx stops listening upstream.
      await modern.unsubscribe();
      await landed(async () => expect(await bystander.change()).toBe('notified: false'));
      expect(modern.updated).toEqual([uri, uri]);
    } finally {
      await Promise.all([legacy.close(), modern.close(), old.close(), bystander.close()]);
    }
  });

  it('listens upstream again when the upstream ends its listen stream while clients are subscribed', async () => {
    const [modern, old, bystander] = await Promise.all([v2('modern', serve), v1(serve), v2('modern', serve)]);
    try {
      await modern.subscribe();
      await old.subscribe();
      // The upstream drops mcpx's listen stream (one per URI, however many subscribe).
      expect(textOf((await bystander.call('test_end_watched_listens')) as Record<string, unknown>)).toBe('ended: 1');
      // mcpx listens again, and tells both the resource may have changed meanwhile (serve-subscription-gaps.test.ts).
      await landed(() => {
        expect(modern.updated).toEqual([uri]);
        expect(old.updated).toEqual([uri]);
      });
      // The next change reaches both subscribers.
      expect(await bystander.change()).toBe('notified: true');
      await landed(() => {
        expect(modern.updated).toEqual([uri, uri]);
        expect(old.updated).toEqual([uri, uri]);
      });
      expect(bystander.updated).toEqual([]);
      // Once they leave, it is not listened to again.
      await modern.unsubscribe();
      await old.unsubscribe();
      await landed(async () => expect(await bystander.change()).toBe('notified: false'));
    } finally {
      await Promise.all([modern.close(), old.close(), bystander.close()]);
    }
  });

  it('stops listening upstream when the last legacy subscriber ends its session', async () => {
    const [legacy, bystander] = await Promise.all([v2('legacy', serve), v2('modern', serve)]);
    try {
      await legacy.subscribe();
      expect(await bystander.change()).toBe('notified: true');
      await landed(() => expect(legacy.updated).toEqual([uri]));
      await legacy.terminate();
      await landed(async () => expect(await bystander.change()).toBe('notified: false'));
    } finally {
      await Promise.all([legacy.close(), bystander.close()]);
    }
  });
});

describe('mcpx serve (stdio): resource subscriptions on a modern upstream', () => {
  for (const kind of ['v2-modern', 'v1'] as const) {
    it(`a ${kind} client hears the changes while subscribed, and mcpx stops listening upstream after it leaves`, async () => {
      const client = kind === 'v1' ? await v1('stdio') : await v2('modern', 'stdio');
      try {
        expect(await client.change()).toBe('notified: false');
        await client.subscribe();
        expect(await client.change()).toBe('notified: true');
        await landed(() => expect(client.updated).toEqual([uri]));
        await client.unsubscribe();
        await landed(async () => expect(await client.change()).toBe('notified: false'));
        expect(client.updated).toEqual([uri]);
      } finally {
        await client.close();
      }
    });
  }
});

describe('mcpx serve (stdio): resource subscriptions on a modern upstream over stdio', () => {
  const FIXTURE = join(resolve(import.meta.dirname, '..'), 'fixtures', 'servers', 'resources.mjs');
  const watched = 'test://stdio-watched';

  it("relays the upstream's updates to a modern client's listen stream and to a legacy (v1) client's subscription", async () => {
    const local = serveSetup({ watched: { command: process.execPath, args: [FIXTURE], era: 'modern' } });
    const spawn = {
      command: process.execPath,
      args: [CLI, 'serve', '--config', local.configPath],
      env: local.env,
      cwd: local.dir,
      stderr: 'pipe' as const,
    };
    const modern = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const modernUpdates: string[] = [];
    modern.setNotificationHandler('notifications/resources/updated', (n) => void modernUpdates.push(n.params.uri));
    const legacy = new V1Client({ name: 'v1', version: '1.0.0' });
    const legacyUpdates: string[] = [];
    legacy.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void legacyUpdates.push(n.params.uri));
    await Promise.all([modern.connect(new StdioClientTransport(spawn)), legacy.connect(new V1Stdio(spawn))]);
    try {
      const listening = await modern.listen({ resourceSubscriptions: [watched] });
      await modern.callTool({ name: 'touch_watched', arguments: {} });
      await landed(() => expect(modernUpdates).toEqual([watched]));
      await listening.close();

      await legacy.subscribeResource({ uri: watched });
      await legacy.callTool({ name: 'touch_watched', arguments: {} });
      await landed(() => expect(legacyUpdates).toEqual([watched]));
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });
});
