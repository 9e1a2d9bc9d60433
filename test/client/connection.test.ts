/**
 * Connections: one spawn per connect on stdio (in-place probe, then the cached verdict), pins, stale verdicts,
 * and connect failures that say which server and why.
 */
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createMcpx } from '../../src/mcpx.js';
import { serverFingerprint, type EraVerdict } from '../../src/client/era-cache.js';
import { fixtureEcho, spawnLog, startHttpFixture, stdioFixture, type FixtureKind } from '../helpers/fixture-servers.js';

function stateEnv(): { env: Record<string, string | undefined>; cacheFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-state-'));
  return { env: { ...process.env, MCPX_STATE_DIR: dir }, cacheFile: join(dir, 'era-cache.json') };
}

describe('era verdict cache', () => {
  it.each<[FixtureKind, 'legacy' | 'modern']>([
    ['dual-era', 'modern'],
    ['legacy-v1', 'legacy'],
  ])('spawns %s once per connect, probing only the first time (%s)', async (kind, era) => {
    const spawns = spawnLog();
    const { env, cacheFile } = stateEnv();
    const server = stdioFixture(kind, spawns.env);
    const first = await createMcpx({ config: { mcpServers: { fx: server } }, env });
    expect(await first.era('fx')).toBe(era);
    await first.close();
    expect(spawns.count()).toBe(1);
    const cache = JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<string, EraVerdict>;
    const verdict = cache[serverFingerprint(server)];
    expect(verdict?.era).toBe(era);
    if (era === 'modern') expect(verdict?.discover).toMatchObject({ supportedVersions: ['2026-07-28'] });

    const second = await createMcpx({ config: { mcpServers: { fx: server } }, env });
    expect(await second.era('fx')).toBe(era);
    expect((await second.listTools('fx')).map((t) => t.name)).toContain('ask_form');
    await second.close();
    expect(spawns.count()).toBe(2);
    // The verdict was reused, not reached again.
    expect((JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<string, EraVerdict>)[serverFingerprint(server)]?.at).toBe(
      verdict?.at,
    );
  });
});

/** Writes a modern verdict for a server that may not (any longer) speak the modern era. */
function staleModernVerdict(cacheFile: string, server: Parameters<typeof serverFingerprint>[0]): void {
  mkdirSync(join(cacheFile, '..'), { recursive: true });
  const fake: EraVerdict = {
    era: 'modern',
    at: Date.now(),
    discover: {
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x', version: '1' } },
    },
  };
  writeFileSync(cacheFile, JSON.stringify({ [serverFingerprint(server)]: fake }));
}

const verdictIn = (cacheFile: string, server: Parameters<typeof serverFingerprint>[0]): EraVerdict | undefined =>
  (JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<string, EraVerdict>)[serverFingerprint(server)];

describe('a stale cached modern verdict', () => {
  it('is re-probed and the listing retried once when the server turns out to be legacy (stdio)', async () => {
    const spawns = spawnLog();
    const { env, cacheFile } = stateEnv();
    const server = stdioFixture('legacy-v1', spawns.env);
    staleModernVerdict(cacheFile, server);
    const mcpx = await createMcpx({ config: { mcpServers: { fx: server } }, env });
    expect((await mcpx.listTools('fx')).map((t) => t.name)).toContain('ask_form');
    expect(await mcpx.era('fx')).toBe('legacy');
    await mcpx.close();
    // One spawn on the stale verdict, one for the probe that corrected it.
    expect(spawns.count()).toBe(2);
    expect(verdictIn(cacheFile, server)?.era).toBe('legacy');
  });

  it('is re-probed and the call retried once when the server refuses it for want of a legacy session (HTTP)', async () => {
    const fixture = await startHttpFixture('legacy-v1');
    try {
      const { env, cacheFile } = stateEnv();
      const server = { url: fixture.url };
      staleModernVerdict(cacheFile, server);
      const mcpx = await createMcpx({ config: { mcpServers: { fx: server } }, env, answerLater: true });
      const outcome = await mcpx.callTool('fx', 'ask_confirm', {});
      // The retry ran on a legacy connection: the question is a live one.
      if (outcome.status !== 'input-required' || !outcome.live)
        throw new Error(`expected a live input-required outcome, got ${JSON.stringify(outcome)}`);
      outcome.live.respond(outcome.questions[0]!.id, { action: 'decline' });
      const done = await outcome.live.result;
      expect(done.status === 'complete' && fixtureEcho(done.result).received).toEqual({ confirm: { action: 'decline' } });
      expect(await mcpx.era('fx')).toBe('legacy');
      await mcpx.close();
      expect(verdictIn(cacheFile, server)?.era).toBe('legacy');
    } finally {
      await fixture.close();
    }
  });

  it('keeps the result of a call a legacy server ran anyway, not running it twice, and re-probes for the next request (stdio)', async () => {
    const spawns = spawnLog();
    const { env, cacheFile } = stateEnv();
    const server = stdioFixture('legacy-v1', spawns.env);
    staleModernVerdict(cacheFile, server);
    const mcpx = await createMcpx({ config: { mcpServers: { fx: server } }, env });
    // A v1 server answers tools/call without initialize, and without resultType: complete, and not retried.
    const outcome = await mcpx.callTool('fx', 'no_ask', { text: 'once' });
    expect(outcome.status === 'complete' && fixtureEcho(outcome.result).text).toBe('once');
    expect(spawns.count()).toBe(1);
    expect(await mcpx.era('fx')).toBe('legacy');
    expect(spawns.count()).toBe(2);
    await mcpx.close();
    expect(verdictIn(cacheFile, server)?.era).toBe('legacy');
  });

  it('is not re-probed when the failure says nothing about the era', async () => {
    const spawns = spawnLog();
    const { env } = stateEnv();
    const server = stdioFixture('dual-era', spawns.env);
    const first = await createMcpx({ config: { mcpServers: { fx: server } }, env });
    expect(await first.era('fx')).toBe('modern');
    await first.close();
    const second = await createMcpx({ config: { mcpServers: { fx: server } }, env, requestTimeoutMs: 200 });
    await expect(second.callTool('fx', 'sleep', { ms: 3000 })).rejects.toMatchObject({ code: 'CALL_FAILED' });
    // Under load the 200 ms timeout can fire before the second process has logged its start; closing then would
    // kill it unlogged. A re-probe would have spawned (and connected) before the call failed, so it is counted here.
    await vi.waitFor(() => expect(spawns.count()).toBeGreaterThanOrEqual(2), { timeout: 30_000, interval: 20 });
    await second.close();
    // The first connect and the cached one: no probe after a timeout.
    expect(spawns.count()).toBe(2);
  });
});

describe('era verdict age', () => {
  it('re-probes a legacy verdict older than a day (the server may have been upgraded)', async () => {
    const { env, cacheFile } = stateEnv();
    const server = stdioFixture('dual-era');
    mkdirSync(join(cacheFile, '..'), { recursive: true });
    writeFileSync(
      cacheFile,
      JSON.stringify({ [serverFingerprint(server)]: { era: 'legacy', at: Date.now() - 2 * 24 * 3600_000 } }),
    );
    const mcpx = await createMcpx({ config: { mcpServers: { fx: server } }, env });
    expect(await mcpx.era('fx')).toBe('modern');
    await mcpx.close();
    expect((JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<string, EraVerdict>)[serverFingerprint(server)]?.era).toBe(
      'modern',
    );
  });

  it('trusts a fresh legacy verdict without probing', async () => {
    const { env, cacheFile } = stateEnv();
    const server = stdioFixture('dual-era');
    mkdirSync(join(cacheFile, '..'), { recursive: true });
    writeFileSync(cacheFile, JSON.stringify({ [serverFingerprint(server)]: { era: 'legacy', at: Date.now() } }));
    const mcpx = await createMcpx({ config: { mcpServers: { fx: server } }, env });
    expect(await mcpx.era('fx')).toBe('legacy');
    await mcpx.close();
  });
});

describe('era pins', () => {
  it('pins legacy on a dual-era server without caching anything', async () => {
    const { env, cacheFile } = stateEnv();
    const mcpx = await createMcpx({ config: { mcpServers: { fx: { ...stdioFixture('dual-era'), era: 'legacy' } } }, env });
    expect(await mcpx.era('fx')).toBe('legacy');
    await mcpx.close();
    expect(() => readFileSync(cacheFile)).toThrow();
  });

  it('refuses a modern pin on a legacy-only server with ERA_NEGOTIATION_FAILED', async () => {
    const { env } = stateEnv();
    const mcpx = await createMcpx({ config: { mcpServers: { old: { ...stdioFixture('legacy-v1'), era: 'modern' } } }, env });
    await expect(mcpx.listTools('old')).rejects.toMatchObject({
      code: 'ERA_NEGOTIATION_FAILED',
      message: expect.stringContaining('"old"'),
    });
    await mcpx.close();
  });
});

describe('connect failures', () => {
  it('name the server and show what it wrote to stderr', async () => {
    const { env } = stateEnv();
    const mcpx = await createMcpx({
      config: {
        mcpServers: {
          broken: {
            command: process.execPath,
            args: ['-e', 'process.stderr.write("missing API key\\n"); process.exit(3)'],
            era: 'legacy',
          },
        },
      },
      env,
    });
    await expect(mcpx.listTools('broken')).rejects.toMatchObject({
      code: 'CONNECT_FAILED',
      message: expect.stringMatching(/"broken"[\s\S]*missing API key/),
    });
    await mcpx.close();
  });

  it('name the URL of an HTTP server that is not there', async () => {
    const { env } = stateEnv();
    const mcpx = await createMcpx({ config: { mcpServers: { remote: { url: 'http://127.0.0.1:9/mcp' } } }, env });
    await expect(mcpx.listTools('remote')).rejects.toMatchObject({ message: expect.stringContaining('http://127.0.0.1:9/mcp') });
    await mcpx.close();
  });
});
