/**
 * What mcpx relies on in the MCP SDK (v2 client), checked against the installed package on real processes and a real
 * HTTP server, so an upgrade that moves it fails here by name: the stdio rule that a subclass probes in place, the
 * public `ReadBuffer` / `serializeMessage` an adopted process speaks through, a transport's `AuthProvider`
 * (`token()` per request, `onUnauthorized` on a 401 then one retry; a 403 insufficient_scope thrown to the caller
 * when the provider is no `OAuthClientProvider`), and the protected `Client._onresponse` McpxClient overrides.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  InsufficientScopeError,
  ReadBuffer,
  serializeMessage,
  StreamableHTTPClientTransport,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCResponse,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { inMemoryFixture, spawnLog, stdioFixture } from '../helpers/fixture-servers.js';

describe('stdio', () => {
  it('a subclass of StdioClientTransport probes server/discover in place: one spawn of a legacy server, not two', async () => {
    const counted = async (Transport: typeof StdioClientTransport): Promise<number> => {
      const spawns = spawnLog();
      const entry = stdioFixture('legacy-v1', spawns.env);
      const client = new Client({ name: 'deps', version: '0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(
        new Transport({
          command: entry.command,
          args: entry.args,
          env: { ...process.env, ...entry.env } as Record<string, string>,
        }),
      );
      expect(client.getProtocolEra()).toBe('legacy');
      await client.close();
      return spawns.count();
    };
    class Subclass extends StdioClientTransport {}
    expect(await counted(Subclass)).toBe(1);
    // The base class probes on a disposable sibling: the reason connection.ts subclasses it.
    expect(await counted(StdioClientTransport)).toBe(2);
  });

  it('serializeMessage writes one line that ReadBuffer reads back, across chunks', () => {
    const message: JSONRPCMessage = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
    const line = serializeMessage(message);
    expect(line.endsWith('\n')).toBe(true);
    const buffer = new ReadBuffer();
    buffer.append(Buffer.from(line.slice(0, 5)));
    expect(buffer.readMessage()).toBeNull();
    buffer.append(Buffer.from(line.slice(5)));
    expect(buffer.readMessage()).toEqual(message);
    expect(buffer.readMessage()).toBeNull();
  });
});

describe('a transport with an AuthProvider', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

  /** A server that answers each POST as `answer` says, and records the Authorization header each carried. */
  async function serve(answer: (n: number, res: ServerResponse) => void): Promise<{ url: URL; seen: string[] }> {
    const seen: string[] = [];
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        seen.push(req.headers.authorization ?? '');
        answer(seen.length, res);
      });
    });
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), seen };
  }
  const notification: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };

  it('asks token() per request, and on a 401 awaits onUnauthorized (with the response) and retries once', async () => {
    const { url, seen } = await serve((n, res) =>
      n === 1 ? res.writeHead(401, { 'www-authenticate': 'Bearer scope="notes:read"' }).end() : res.writeHead(202).end(),
    );
    let token = 'old';
    const unauthorized: Array<{ status: number; serverUrl: string; scope: string | null }> = [];
    const transport = new StreamableHTTPClientTransport(url, {
      authProvider: {
        token: async () => token,
        onUnauthorized: async (ctx) => {
          unauthorized.push({
            status: ctx.response.status,
            serverUrl: ctx.serverUrl.href,
            scope: ctx.response.headers.get('www-authenticate'),
          });
          expect(typeof ctx.fetchFn).toBe('function');
          token = 'new';
        },
      },
    });
    await transport.start();
    await transport.send(notification);
    expect(unauthorized).toEqual([{ status: 401, serverUrl: url.href, scope: 'Bearer scope="notes:read"' }]);
    expect(seen).toEqual(['Bearer old', 'Bearer new']);
    await transport.close();
  });

  it('throws InsufficientScopeError with the scope asked for on a 403 insufficient_scope', async () => {
    const { url } = await serve((_, res) =>
      res.writeHead(403, { 'www-authenticate': 'Bearer error="insufficient_scope", scope="notes:admin"' }).end(),
    );
    const transport = new StreamableHTTPClientTransport(url, { authProvider: { token: async () => 't' } });
    await transport.start();
    const error = await transport.send(notification).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InsufficientScopeError);
    expect((error as InsufficientScopeError).requiredScope).toBe('notes:admin');
    await transport.close();
  });
});

describe('Client', () => {
  it('passes every response through the protected _onresponse a subclass overrides', async () => {
    const seen: Array<string | number> = [];
    class Counting extends Client {
      protected override _onresponse(response: JSONRPCResponse | JSONRPCErrorResponse): void {
        if (response.id !== undefined) seen.push(response.id);
        super._onresponse(response);
      }
    }
    const fixture = inMemoryFixture('dual-era');
    const client = new Counting({ name: 'deps', version: '0' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(fixture.transport);
    const before = seen.length;
    expect(before).toBeGreaterThan(0);
    await client.listTools();
    expect(seen.length).toBe(before + 1);
    await client.close();
    await fixture.close();
  });
});
