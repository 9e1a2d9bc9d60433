/**
 * REST through the daemon: `POST /v1/call/fx/no_ask` over the unix socket to an MCP server served in this process
 * (in-memory transport), against the same call made directly with `mcpx.callTool` (the floor), in one run.
 * Stores: memory (what the REST layer itself costs) and the SQLite file the daemon really uses (task records
 * are written per call). Also a call that asks: 202, answer over REST, result via /v1/tasks?wait.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import { openSqliteStore, toBrokerStore } from '../src/broker/index.js';
import { createMemoryEraCache } from '../src/client/era-cache.js';
import { createMcpx } from '../src/mcpx.js';
import type { ElicitHandler } from '../src/types.js';
import type { DaemonParts } from '../src/surfaces/daemon/daemon-core.js';
import { runDaemon } from '../src/surfaces/daemon/daemon.js';
import { socketFetch } from '../src/surfaces/daemon/client.js';
import { daemonPaths } from '../src/surfaces/daemon/paths.js';
import { inMemoryFixture } from '../test/helpers/fixture-servers.js';
import type { BenchFigure, BenchSuite } from './index.js';

const CALLS = Number(process.env.BENCH_DAEMON_CALLS ?? 400);
const ASKS = Number(process.env.BENCH_DAEMON_ASKS ?? 50);
const WARMUP = 30;

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function time(n: number, once: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return samples;
}

function inProcessMcpx(onElicit?: ElicitHandler) {
  const fixtures: Array<{ close(): Promise<void> }> = [];
  return createMcpx({
    config: { mcpServers: {} },
    env: {},
    servers: {
      fx: {
        connect: () => {
          const fixture = inMemoryFixture('dual-era');
          fixtures.push(fixture);
          return fixture.transport;
        },
        era: 'modern',
      },
    },
    answerLater: true,
    eraCache: createMemoryEraCache(),
    ...(onElicit ? { onElicit } : {}),
  }).then((mcpx) => ({
    ...mcpx,
    async close() {
      await mcpx.close();
      await Promise.all(fixtures.map((f) => f.close()));
    },
  }));
}

async function measureStore(kind: 'memory' | 'sqlite', dir: string): Promise<BenchFigure[]> {
  const stateDir = join(dir, kind);
  const env = { MCPX_STATE_DIR: stateDir };
  const store = kind === 'sqlite' ? await openSqliteStore(join(stateDir, 'mcpx.sqlite')) : toBrokerStore(new Keyv());
  // The daemon's host opens the broker over the store (and closes both); its sessions' pipelines open questions there.
  const parts: DaemonParts = {
    store,
    env,
    defaultSession: 'bench',
    openHost: (session, sessionSource, pipeline) => inProcessMcpx(pipeline({ session: { session, sessionSource } })),
    close: async () => undefined,
  };
  const daemon = await runDaemon({
    paths: daemonPaths(env, undefined),
    version: 'bench',
    openParts: async () => parts,
    idleMs: 0,
  });
  const client = socketFetch(daemon.state.socket);
  const json = { method: 'POST', headers: { 'content-type': 'application/json' } };
  try {
    const calls = await time(CALLS, async () => {
      const response = await client.fetch('/v1/call/fx/no_ask', { ...json, body: '{"text":"hi"}' });
      if (response.status !== 200) throw new Error(`call answered ${response.status}: ${await response.text()}`);
      await response.text();
    });
    const asks = await time(ASKS, async () => {
      const asked = await client.fetch('/v1/call/fx/ask_confirm', { ...json, body: '{}' });
      if (asked.status !== 202) throw new Error(`ask answered ${asked.status}`);
      const body = (await asked.json()) as { inputRequired: { task: string; questions: Array<{ id: string }> } };
      await (
        await client.fetch(`/v1/elicit/${body.inputRequired.questions[0]!.id}/accept`, {
          ...json,
          body: '{"content":{"confirm":true}}',
        })
      ).text();
      const task = (await (await client.fetch(`/v1/tasks/${body.inputRequired.task}?wait=10`)).json()) as {
        task: { state: string };
      };
      if (task.task.state !== 'complete') throw new Error(`task ended ${task.task.state}`);
    });
    return [
      {
        suite: 'daemon',
        name: `REST call via unix socket, ${kind} store: p50`,
        value: percentile(calls, 50),
        unit: 'ms',
        target: '< 5 ms',
      },
      { suite: 'daemon', name: `REST call via unix socket, ${kind} store: p95`, value: percentile(calls, 95), unit: 'ms' },
      {
        suite: 'daemon',
        name: `ask + answer + task result via REST, ${kind} store: p50`,
        value: percentile(asks, 50),
        unit: 'ms',
        note: '3 requests, 2 tool calls',
      },
    ];
  } finally {
    client.close();
    await daemon.stop('bench over');
  }
}

export const run: BenchSuite = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-daemon-'));
  try {
    const direct = await inProcessMcpx();
    const floor = await time(CALLS, async () => {
      const outcome = await direct.callTool('fx', 'no_ask', { text: 'hi' });
      if (outcome.status !== 'complete') throw new Error('no_ask did not complete');
    });
    await direct.close();
    const memory = await measureStore('memory', dir);
    const sqlite = await measureStore('sqlite', dir);
    const floorP50 = percentile(floor, 50);
    return [
      { suite: 'daemon', name: 'direct mcpx.callTool, same server (floor): p50', value: floorP50, unit: 'ms' },
      ...memory,
      ...sqlite,
      { suite: 'daemon', name: 'REST (sqlite) p50 / direct p50', value: sqlite[0]!.value / floorP50, unit: 'x' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
