/**
 * `mcpx serve` (the built CLI) in front of a modern upstream over stdio (the dual-era fixture plus a logging tool,
 * test/fixtures/servers/logging.mjs): a call's log messages reach the client's request at the client's level. Over
 * stdio a log message names no request; a 2026-07-28 server sends none for a request that named no level, so while
 * one request that asked is in flight they are its own, and two asking at once get none rather than each other's.
 */
import { join, resolve } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup, startHttpServe, stdioServe, textOf, type HttpServeProcess, type ServeSetup } from '../helpers/serve.js';

const FIXTURE = join(resolve(import.meta.dirname, '..'), 'fixtures', 'servers', 'logging.mjs');
type Logged = { level: string; data: unknown };

let setup: ServeSetup;
beforeAll(() => {
  setup = serveSetup({ logs: { command: process.execPath, args: [FIXTURE], era: 'modern' } });
});

/** A modern v2 client that records the log messages it gets and names a level (or none) on each call. */
async function modernClient(over: { url: string } | 'stdio') {
  const client = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const logs: Logged[] = [];
  client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params as Logged));
  await client.connect(
    over === 'stdio' ? new StdioClientTransport(stdioServe(setup)) : new StreamableHTTPClientTransport(new URL(over.url)),
  );
  return {
    logs,
    call: async (args: Record<string, unknown>, level?: string) =>
      textOf(
        (await client.callTool({
          name: 'log_steps',
          arguments: args,
          ...(level ? { _meta: { [LOG_LEVEL_META_KEY]: level } } : {}),
        })) as Record<string, unknown>,
      ),
    close: () => client.close(),
  };
}

describe('mcpx serve relays the log messages of a call to a modern stdio upstream', () => {
  it('to a modern client at the level its request names, and none to a request that names none', async () => {
    const client = await modernClient('stdio');
    try {
      expect(await client.call({ tag: 'a' }, 'info')).toBe('a done');
      expect(client.logs).toEqual([
        { level: 'info', data: 'a 1' },
        { level: 'info', data: 'a 2' },
        { level: 'info', data: 'a 3' },
      ]);
      expect(await client.call({ tag: 'b', steps: 1 }, 'debug')).toBe('b done');
      expect(client.logs.slice(3).map((l) => l.data)).toEqual(['b 1', 'b debug']);
      expect(await client.call({ tag: 'c' })).toBe('c done');
      expect(client.logs).toHaveLength(5);
    } finally {
      await client.close();
    }
  });

  it('to a legacy client (v1) at the level it set', async () => {
    const client = new V1Client({ name: 'v1', version: '1.0.0' });
    const logs: Logged[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params as Logged));
    await client.connect(new V1Stdio(stdioServe(setup)));
    try {
      await client.setLoggingLevel('info');
      await client.callTool({ name: 'log_steps', arguments: { tag: 'a' } });
      expect(logs.map((l) => l.data)).toEqual(['a 1', 'a 2', 'a 3']);
    } finally {
      await client.close();
    }
  });

  describe('to several clients of one serve (one upstream connection)', () => {
    let serve: HttpServeProcess;
    beforeAll(async () => {
      serve = await startHttpServe(setup);
    });
    afterAll(async () => {
      await serve?.close();
    });

    it("never gives one client's call the log messages of another's running at the same time", async () => {
      const [a, b] = await Promise.all([modernClient(serve), modernClient(serve)]);
      try {
        // One at a time: each gets its own.
        await a.call({ tag: 'a' }, 'info');
        expect(a.logs.map((l) => l.data)).toEqual(['a 1', 'a 2', 'a 3']);
        // At once (their steps interleave): whatever each gets is its own.
        await Promise.all([
          a.call({ tag: 'A', steps: 4, everyMs: 40 }, 'info'),
          b.call({ tag: 'B', steps: 4, everyMs: 40 }, 'info'),
        ]);
        expect(a.logs.every((l) => /^a |^A /.test(String(l.data)))).toBe(true);
        expect(b.logs.every((l) => /^B /.test(String(l.data)))).toBe(true);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });
});
