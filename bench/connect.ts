/**
 * connect + listTools + one call on a stdio server: mcpx against the plain v2 client in the same run, with
 * spawns per connect counted. Servers: server-everything (v1, legacy) and our dual-era fixture (modern).
 * "plain, same era" is the plain client told the era up front (legacy mode, or `prior` with the discover result):
 * the fastest the SDK can do. "plain auto" is the SDK's stdio default for negotiation (a sibling probe process).
 */
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createMcpx } from '../src/mcpx.js';
import type { BenchFigure, BenchSuite } from './index.js';

const ROUNDS = Number(process.env.BENCH_CONNECT_ROUNDS ?? 5);
const root = resolve(import.meta.dirname, '..');
const counter = join(root, 'bench', 'spawn-counted.mjs');

interface Target {
  label: string;
  script: string;
  args: string[];
  tool: string;
  toolArgs: Record<string, unknown>;
  era: 'legacy' | 'modern';
}

const targets: Target[] = [
  {
    label: 'server-everything (v1)',
    script: join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
    args: ['stdio'],
    tool: 'echo',
    toolArgs: { message: 'hi' },
    era: 'legacy',
  },
  {
    label: 'dual-era fixture (v2, modern)',
    script: join(root, 'examples/servers/dual-era.mjs'),
    args: ['--stdio'],
    tool: 'no_ask',
    toolArgs: { text: 'hi' },
    era: 'modern',
  },
];

type Variant = 'mcpx (verdict cached)' | 'plain, same era' | 'plain auto';

async function once(
  target: Target,
  variant: Variant,
  env: Record<string, string>,
  discover: unknown,
  stateDir: string,
): Promise<number> {
  const started = performance.now();
  if (variant === 'mcpx (verdict cached)') {
    const mcpx = await createMcpx({
      config: { mcpServers: { s: { command: process.execPath, args: [counter, target.script, ...target.args], env } } },
      env: { ...process.env, MCPX_STATE_DIR: stateDir },
    });
    await mcpx.listTools('s');
    const outcome = await mcpx.callTool('s', target.tool, target.toolArgs);
    if (outcome.status !== 'complete' || outcome.result.isError) throw new Error(`bench call failed: ${JSON.stringify(outcome)}`);
    await mcpx.close();
  } else {
    const client = new Client(
      { name: 'bench', version: '0' },
      { versionNegotiation: { mode: variant === 'plain auto' ? 'auto' : 'legacy' } },
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [counter, target.script, ...target.args],
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', () => undefined);
    if (variant === 'plain, same era' && target.era === 'modern')
      await client.connect(transport, { prior: { kind: 'modern', discover: discover as never } });
    else await client.connect(transport);
    await client.listTools();
    const result = await client.callTool({ name: target.tool, arguments: target.toolArgs });
    if (result.isError) throw new Error('bench call failed');
    await client.close();
  }
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const run: BenchSuite = async () => {
  const figures: BenchFigure[] = [];
  for (const target of targets) {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-connect-'));
    const log = join(dir, 'spawns.log');
    const env = { BENCH_SPAWN_LOG: log };
    const spawns = (): number => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
    const stateDir = join(dir, 'state');

    // Warm-up (not measured): mcpx probes once and caches the verdict; the discover result feeds the plain `prior`.
    const warmSpawnsBefore = spawns();
    await once(target, 'mcpx (verdict cached)', env, undefined, stateDir);
    const coldSpawns = spawns() - warmSpawnsBefore;
    const cache = JSON.parse(readFileSync(join(stateDir, 'era-cache.json'), 'utf8')) as Record<string, { discover?: unknown }>;
    const discover = Object.values(cache)[0]?.discover;

    const variants: Variant[] = ['mcpx (verdict cached)', 'plain, same era', 'plain auto'];
    const times: Record<Variant, number[]> = { 'mcpx (verdict cached)': [], 'plain, same era': [], 'plain auto': [] };
    const spawnCount: Record<Variant, number> = { 'mcpx (verdict cached)': 0, 'plain, same era': 0, 'plain auto': 0 };
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order each round so drift on a busy machine falls on every variant alike.
      for (let i = 0; i < variants.length; i++) {
        const variant = variants[(i + round) % variants.length]!;
        const before = spawns();
        times[variant].push(await once(target, variant, env, discover, stateDir));
        spawnCount[variant] += spawns() - before;
      }
    }
    const ours = median(times['mcpx (verdict cached)']);
    const same = median(times['plain, same era']);
    const auto = median(times['plain auto']);
    const name = (s: string): string => `${target.label}: ${s}`;
    figures.push(
      { suite: 'connect', name: name('mcpx connect+list+call, median'), value: ours, unit: 'ms', note: `${ROUNDS} rounds` },
      { suite: 'connect', name: name('plain v2 client, same era, median'), value: same, unit: 'ms' },
      { suite: 'connect', name: name('plain v2 client, auto, median'), value: auto, unit: 'ms' },
      { suite: 'connect', name: name('ratio mcpx / plain same era'), value: ours / same, unit: 'x', target: '<= 1.05' },
      { suite: 'connect', name: name('ratio mcpx / plain auto'), value: ours / auto, unit: 'x' },
      {
        suite: 'connect',
        name: name('spawns per connect, mcpx first connect (probe)'),
        value: coldSpawns,
        unit: 'spawns',
        target: '1',
      },
      {
        suite: 'connect',
        name: name('spawns per connect, mcpx verdict cached'),
        value: spawnCount['mcpx (verdict cached)'] / ROUNDS,
        unit: 'spawns',
        target: '1',
      },
      {
        suite: 'connect',
        name: name('spawns per connect, plain auto'),
        value: spawnCount['plain auto'] / ROUNDS,
        unit: 'spawns',
      },
    );
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
};
