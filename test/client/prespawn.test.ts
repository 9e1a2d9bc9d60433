/**
 * A stdio server started early (a cold `mcpx call`'s daemon does it while it loads): the first connection adopts
 * the process only when it would spawn exactly the same one; otherwise it starts its own and the early one stops.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMcpx } from '../../src/mcpx.js';
import { startEarly, stdioSpawnOf, stopEarly, takeEarly } from '../../src/client/prespawn.js';
import { spawnLog, stdioFixture } from '../helpers/fixture-servers.js';

function stateEnv(): Record<string, string | undefined> {
  return { ...process.env, MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-state-')) };
}

afterEach(() => stopEarly());

describe('servers started early', () => {
  it.each(['dual-era', 'legacy-v1'] as const)('the first connection adopts the early %s process: one spawn', async (kind) => {
    const spawns = spawnLog();
    const env = stateEnv();
    const cwd = process.cwd();
    const server = stdioFixture(kind, spawns.env);
    startEarly(stdioSpawnOf(server, env, cwd), env);
    await vi.waitFor(() => expect(spawns.count()).toBe(1), { timeout: 20_000, interval: 20 });
    const mcpx = await createMcpx({ config: { mcpServers: { fx: server } }, env, cwd });
    try {
      expect((await mcpx.listTools('fx')).map((t) => t.name)).toContain('ask_form');
      expect(await mcpx.era('fx')).toBe(kind === 'dual-era' ? 'modern' : 'legacy');
    } finally {
      await mcpx.close();
    }
    expect(spawns.count()).toBe(1);
  });

  it('a connection that would spawn differently starts its own process, and the early one is stopped', async () => {
    const spawns = spawnLog();
    const env = stateEnv();
    const cwd = process.cwd();
    const server = stdioFixture('dual-era', spawns.env);
    const other = stdioSpawnOf({ ...server, env: { ...server.env, EXTRA: '1' } }, env, cwd);
    startEarly(other, env);
    const mcpx = await createMcpx({ config: { mcpServers: { fx: server } }, env, cwd });
    try {
      expect((await mcpx.listTools('fx')).map((t) => t.name)).toContain('ask_form');
    } finally {
      await mcpx.close();
    }
    await vi.waitFor(() => expect(spawns.count()).toBe(2), { timeout: 20_000, interval: 20 });
    // Still waiting for its own connection; stopping takes it away.
    stopEarly();
    expect(takeEarly(other)).toBeUndefined();
  });

  it('an early process that could not start is not adopted: the connection reports its own error', async () => {
    const env = stateEnv();
    const cwd = process.cwd();
    const server = { command: join(cwd, 'no-such-server-binary') };
    startEarly(stdioSpawnOf(server, env, cwd), env);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const mcpx = await createMcpx({ config: { mcpServers: { fx: server } }, env, cwd });
    try {
      await expect(mcpx.listTools('fx')).rejects.toThrow(/cannot connect to server "fx".*no-such-server-binary/s);
    } finally {
      await mcpx.close();
    }
  });
});
