/**
 * A daemon run in a process of its own making (runDaemon without onLeaseLost: it stops rather than exits) that lost
 * its lease while resuming a modern call writes nothing over the survivor that adopted the call: its runner closes
 * as lost. Real Redis, a real modern server over Streamable HTTP, the daemon in this process.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createDualEraHttpServer } from '../../examples/servers/dual-era.mjs';
import { openStoreUrl } from '../../src/broker/store-url.js';
import { socketFetch } from '../../src/surfaces/daemon/client.js';
import { runDaemon } from '../../src/surfaces/daemon/daemon.js';
import { openDaemonParts } from '../../src/surfaces/daemon/daemon-wiring.js';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { openLeases } from '../../src/tasks/leases.js';
import { createTaskStore } from '../../src/tasks/task-store.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

const SESSION = { 'x-mcpx-session': 'ses-lost-close' };
const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...SESSION },
  body: JSON.stringify(body),
});

const CONFIRM = { type: 'object' as const, properties: { confirm: { type: 'boolean' as const } }, required: ['confirm'] };

describe('a daemon that lost its lease while resuming a call', () => {
  it('stops without writing over the record of the survivor that adopted the call', async () => {
    // `ask_then_hold` asks, and once answered holds its reply until the test lets it go: the daemon is resuming.
    let resumed!: () => void;
    const resuming = new Promise<void>((resolve) => (resumed = resolve));
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const server = createDualEraHttpServer({
      extend: (mcp) => {
        mcp.registerTool(
          'ask_then_hold',
          { description: 'Asks, then holds its reply.', inputSchema: z.object({}) },
          async (_args, ctx) => {
            if (inputResponse(ctx.mcpReq.inputResponses, 'confirm').kind !== 'elicit')
              return inputRequired({
                inputRequests: {
                  confirm: inputRequired.elicit({ mode: 'form', message: 'Go on?', requestedSchema: CONFIRM }),
                },
              });
            resumed();
            await held;
            return { content: [{ type: 'text', text: 'done' }] };
          },
        );
        return mcp;
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-lost-close-'));
    const configPath = join(dir, 'mcpx.json');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    writeFileSync(configPath, JSON.stringify({ mcpServers: { slow: { url, era: 'modern' } } }));
    const env = {
      MCPX_STATE_DIR: join(dir, 'state'),
      PATH: process.env.PATH ?? '',
      MCPX_STORE_URL: redis.url,
      MCPX_LEASE_MS: '1000',
    };
    const paths = daemonPaths(env, configPath);
    const daemon = await runDaemon({
      paths,
      version: '0.1.0-test',
      openParts: () => openDaemonParts({ env, cwd: dir, configPath, version: '0.1.0-test' }),
      idleMs: 0,
    });
    const client = socketFetch(daemon.state.socket);
    const store = await openStoreUrl(redis.url);
    try {
      const started = await client.fetch('/v1/call/slow/ask_then_hold', post({}));
      expect(started.status).toBe(202);
      const { inputRequired: asked } = (await started.json()) as {
        inputRequired: { task: string; questions: Array<{ id: string }> };
      };
      expect(
        (await client.fetch(`/v1/elicit/${asked.questions[0]!.id}/accept`, post({ content: { confirm: true } }))).status,
      ).toBe(200);
      await resuming;

      // Another daemon takes the lease (as one judging this one dead does) and adopts the call from its stored round.
      const leases = openLeases(store)!;
      const name = `holder:${paths.fingerprint}`;
      const owner = (await leases.list()).leases.find((l) => l.name === name)!.owner;
      expect(await leases.acquire(name, 'survivor:1:adopts', 60_000, owner)).toBe(true);
      const tasks = createTaskStore(store.keyv);
      const stored = (await tasks.get(asked.task))!;
      expect(stored.state).toBe('input-required');
      const adopted = { ...stored, holder: 'survivor', pid: 1, instance: 'survivor:1:adopts', updatedAt: Date.now() };
      await tasks.put(adopted);

      // Its next renewal is refused: the daemon stops, and the call's record stays the survivor's.
      await daemon.stopped;
      expect(await tasks.get(asked.task)).toEqual(adopted);
    } finally {
      letGo();
      client.close();
      await daemon.stop().catch(() => undefined);
      await store.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);
});
