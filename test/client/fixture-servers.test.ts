import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  fixtureEcho,
  inMemoryFixture,
  spawnLog,
  startHttpFixture,
  stdioFixture,
  type FixtureKind,
  type HttpFixture,
} from '../helpers/fixture-servers.js';

// The fixtures seen through the plain v2 client: they echo exactly what they received.
function plainClient(mode: 'legacy' | 'auto'): Client {
  const client = new Client(
    { name: 'fixture-test', version: '0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
  return client;
}

describe('fixture servers', () => {
  const http: HttpFixture[] = [];
  afterAll(async () => Promise.all(http.map((h) => h.close())));

  it.each<[FixtureKind, 'legacy' | 'auto', string]>([
    ['dual-era', 'auto', 'modern'],
    ['dual-era', 'legacy', 'legacy'],
    ['legacy-v1', 'auto', 'legacy'],
  ])('%s over stdio in %s mode is %s and echoes a decline', async (kind, mode, era) => {
    const spawns = spawnLog();
    const entry = stdioFixture(kind, spawns.env);
    const client = plainClient(mode);
    class InPlaceStdio extends StdioClientTransport {}
    await client.connect(
      new InPlaceStdio({
        command: entry.command,
        args: entry.args,
        env: { ...process.env, ...entry.env } as Record<string, string>,
      }),
    );
    expect(client.getProtocolEra()).toBe(era);
    const echo = fixtureEcho(await client.callTool({ name: 'ask_form', arguments: {} }));
    expect(echo).toMatchObject({ tool: 'ask_form', era, received: { details: { action: 'decline' } } });
    await client.close();
    expect(spawns.count()).toBe(1);
  });

  it.each<FixtureKind>(['dual-era', 'legacy-v1'])('%s over HTTP prints a URL and serves legacy elicitation', async (kind) => {
    const server = await startHttpFixture(kind);
    http.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = plainClient('legacy');
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const echo = fixtureEcho(await client.callTool({ name: 'ask_confirm', arguments: {} }));
    expect(echo.received.confirm).toEqual({ action: 'decline' });
    await client.close();
  });

  it.each<FixtureKind>(['dual-era', 'legacy-v1'])('%s serves in memory', async (kind) => {
    const fixture = inMemoryFixture(kind);
    const client = plainClient('auto');
    await client.connect(fixture.transport);
    // region_echo declares an x-mcp-header, which only the modern fixture serves.
    const expected = [
      'ask_confirm',
      'ask_form',
      'ask_rounds',
      'ask_two',
      'ask_url',
      'no_ask',
      ...(kind === 'dual-era' ? ['region_echo'] : []),
      'sleep',
    ];
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(expected);
    await client.close();
    await fixture.close();
  });
});
