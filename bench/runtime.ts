/**
 * The script runtime: how fast a sandbox is ready (with its hard memory cap), what a tool call through the sandbox
 * costs over the same call from Node, memory per sandbox parked on a call, 100 sandboxes at once, and type
 * stripping (esbuild against ts.transpileModule). Run: npm run bench -- runtime
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createMcpx } from '../src/mcpx.js';
import { prepareScript, startScript, warmSandboxes, type HostBindings, type ScriptRun } from '../src/runtime/index.js';
import { inMemoryServer } from '../test/helpers/fixture-servers.js';
import type { BenchFigure, BenchSuite } from './index.js';

const SUITE = 'runtime';
const MEMORY = 64 * 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const script = (code: string) => ({ code, filename: 'bench.js' });

function cpuMicros(usage: NodeJS.CpuUsage): number {
  return usage.user + usage.system;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Time from startScript() to the script's first line running (it calls the host at once). */
async function timeToReady(isolation: 'thread' | 'worker' = 'thread'): Promise<number> {
  let ready!: (at: number) => void;
  const first = new Promise<number>((resolve) => (ready = resolve));
  const bindings: HostBindings = {
    callTool: async () => {
      ready(performance.now());
      return { status: 'ok', value: 1 };
    },
    console: () => undefined,
  };
  const started = performance.now();
  const run = await startScript({ script: script('await tools.t.ready({});'), bindings, isolation });
  const at = await first;
  await run.outcome;
  return at - started;
}

async function coldStart(figures: BenchFigure[]): Promise<void> {
  await warmSandboxes({ memoryBytes: MEMORY, count: 0 });
  await timeToReady(); // compiles the module and warms the JIT
  const fresh: number[] = [];
  for (let i = 0; i < 30; i++) fresh.push(await timeToReady());
  figures.push({
    suite: SUITE,
    name: 'sandbox ready, fresh capped instance (median of 30)',
    value: median(fresh),
    unit: 'ms',
    note: 'instantiate + runtime + context + prelude',
  });

  const pooled: number[] = [];
  for (let i = 0; i < 30; i++) {
    await warmSandboxes({ memoryBytes: MEMORY, count: 2 }); // refill outside the timing, as a pool does between runs
    pooled.push(await timeToReady());
  }
  figures.push({
    suite: SUITE,
    name: 'sandbox ready, pre-instantiated capped instance (median of 30)',
    value: median(pooled),
    unit: 'ms',
    target: '< 3 ms with the hard memory cap',
    note: `64 MiB cap kept (a fresh WebAssembly.Memory per run); p90 ${round(pooled.sort((a, b) => a - b)[27] ?? NaN)} ms`,
  });

  const worker: number[] = [];
  for (let i = 0; i < 5; i++) worker.push(await timeToReady('worker'));
  figures.push({
    suite: SUITE,
    name: 'sandbox ready, worker isolation (median of 5)',
    value: median(worker),
    unit: 'ms',
    note: 'worker start + QuickJS in the worker; what mcpx run pays for its hard CPU kill',
  });
}

async function perCall(figures: BenchFigure[]): Promise<void> {
  const calls = 5_000;
  const loop = `for (let i = 0; i < ${calls}; i++) await tools.b.echo({ n: i, text: 'hello' });`;

  // Pure overhead: a host that answers at once. Rounds alternate, and the best of each side counts (a loaded
  // machine adds noise to both; the minimum is the cost).
  const stub: HostBindings = {
    callTool: async (_s, _t, args) => ({ status: 'ok', value: { n: args.n } }),
    console: () => undefined,
  };
  const sandboxStub: number[] = [];
  const nodeStub: number[] = [];
  const sandboxWall: number[] = [];
  for (let round = 0; round < 5; round++) {
    let cpu = process.cpuUsage();
    const started = performance.now();
    await (
      await startScript({ script: script(loop), bindings: stub })
    ).outcome;
    sandboxWall.push(((performance.now() - started) * 1000) / calls);
    sandboxStub.push(cpuMicros(process.cpuUsage(cpu)) / calls);
    cpu = process.cpuUsage();
    for (let i = 0; i < calls; i++)
      await stub.callTool('b', 'echo', JSON.parse(JSON.stringify({ n: i, text: 'hello' })) as Record<string, unknown>);
    nodeStub.push(cpuMicros(process.cpuUsage(cpu)) / calls);
  }
  // CPU time, not wall time: on a loaded machine wall time mostly measures the other processes.
  const viaSandboxStub = median(sandboxStub);
  const fromNodeStub = median(nodeStub);
  figures.push({
    suite: SUITE,
    name: 'tool call through the sandbox, instant host (CPU per call, median of 5)',
    value: viaSandboxStub,
    unit: 'µs',
    note: `from Node directly: ${round(fromNodeStub)} µs; wall ${round(median(sandboxWall))} µs`,
  });
  figures.push({
    suite: SUITE,
    name: 'sandbox overhead per tool call (sandbox − Node, CPU, instant host)',
    value: viaSandboxStub - fromNodeStub,
    unit: 'µs',
    target: '< 40 µs',
  });

  // A real MCP server in this process (in-memory transport): the ratio a script author sees.
  const fixture = inMemoryServer('dual-era', 'modern');
  const mcpx = await createMcpx({
    config: { mcpServers: {} },
    servers: { fx: fixture.connector },
    env: { ...process.env, MCPX_STATE_DIR: '/tmp/mcpx-bench-runtime' },
  });
  try {
    // Each side in its own loop, as a script author and a Node program make calls, in blocks that alternate
    // (node, sandbox, node, ...) so both see the same machine load; per-call medians drop descheduled outliers.
    // A script call's time is from one call reaching the host to the next: the MCP call, the reply into the
    // sandbox, the script's loop and its next call. (Alternating call by call instead flatters the sandbox: the
    // QuickJS work before each Node call makes that call slower, about 80 against 48 µs here.)
    const blocks = 10;
    const perBlock = 300;
    const fromNode: number[] = [];
    const viaSandbox: number[] = [];
    let lastCall = 0;
    const timed: HostBindings = {
      callTool: async (server, tool, args) => {
        const now = performance.now();
        if (lastCall) viaSandbox.push((now - lastCall) * 1000);
        lastCall = now;
        const outcome = await mcpx.callTool(server, tool, args);
        return outcome.status === 'complete'
          ? { status: 'ok', value: outcome.result }
          : { status: 'input-required', message: 'unexpected' };
      },
      console: () => undefined,
    };
    const realLoop = `for (let i = 0; i <= ${perBlock}; i++) await tools.fx.no_ask({ text: 'hello' });`;
    for (let block = 0; block < blocks; block++) {
      for (let i = 0; i < perBlock; i++) {
        const started = performance.now();
        await mcpx.callTool('fx', 'no_ask', { text: 'hello' });
        fromNode.push((performance.now() - started) * 1000);
      }
      lastCall = 0;
      await (
        await startScript({ script: script(realLoop), bindings: timed })
      ).outcome;
    }
    const sandboxMedian = median(viaSandbox);
    const nodeMedian = median(fromNode);
    const ratio = sandboxMedian / nodeMedian;
    figures.push({
      suite: SUITE,
      name: 'tool call to an in-memory MCP server: sandbox / Node (per-call medians)',
      value: ratio,
      unit: 'x',
      target: '<= 1.3x',
      met: ratio <= 1.3,
      note: `${round(sandboxMedian)} µs through the sandbox vs ${round(nodeMedian)} µs from Node, ${blocks} alternating blocks of ${perBlock} calls each; quartiles ${quartiles(viaSandbox)} vs ${quartiles(fromNode)} µs`,
    });

    const workerLoop = `for (let i = 0; i < ${calls}; i++) await tools.b.echo({ n: i });`;
    const started = performance.now();
    await (
      await startScript({ script: script(workerLoop), bindings: stub, isolation: 'worker' })
    ).outcome;
    figures.push({
      suite: SUITE,
      name: 'tool call through a worker-isolated sandbox, instant host (per call, incl. start)',
      value: ((performance.now() - started) * 1000) / calls,
      unit: 'µs',
    });
  } finally {
    await mcpx.close();
    await fixture.close();
  }
}

async function parked(figures: BenchFigure[]): Promise<void> {
  const count = 100;
  await warmSandboxes({ memoryBytes: MEMORY, count: 0 });
  const releases: Array<() => void> = [];
  const holding: HostBindings = {
    callTool: () =>
      new Promise((resolve) => {
        releases.push(() => resolve({ status: 'ok', value: 1 }));
      }),
    console: () => undefined,
  };
  // One round first, so code and JIT are not counted as sandbox memory.
  const warm = await startScript({ script: script('await tools.t.wait({});'), bindings: holding });
  while (releases.length < 1) await new Promise((resolve) => setImmediate(resolve));
  releases.shift()?.();
  await warm.outcome;
  await settle();
  const before = process.memoryUsage();
  const started = performance.now();
  const runs: ScriptRun[] = await Promise.all(
    Array.from({ length: count }, () =>
      startScript({ script: script('const r = await tools.t.wait({}); export default r;'), bindings: holding }),
    ),
  );
  while (releases.length < count) await new Promise((resolve) => setImmediate(resolve));
  const allWaiting = performance.now() - started;
  await settle();
  const after = process.memoryUsage();
  const perSandbox = (after.rss - before.rss) / count / 1024 / 1024;
  const reserved = (after.external - before.external) / count / 1024 / 1024;
  for (const release of releases.splice(0)) release();
  const outcomes = await Promise.all(runs.map((r) => r.outcome));
  const total = performance.now() - started;
  const ok = outcomes.filter((o) => o.status === 'ok').length;
  figures.push({
    suite: SUITE,
    name: 'memory per sandbox parked on a tool call (RSS / 100)',
    value: perSandbox,
    unit: 'MiB',
    target: '< 1 MiB',
    note: `fresh instance each (no pool), 64 MiB cap each; ${round(reserved)} MiB of WebAssembly memory reserved each, untouched pages not resident`,
  });
  figures.push({ suite: SUITE, name: '100 sandboxes at once: all started and waiting on a call', value: allWaiting, unit: 'ms' });
  figures.push({
    suite: SUITE,
    name: '100 sandboxes at once: started, answered and finished',
    value: total,
    unit: 'ms',
    note: `${ok}/100 ok`,
  });
}

async function stripping(figures: BenchFigure[]): Promise<void> {
  const block = (i: number) => `interface Item${i} { id: number; name: string; tags?: string[] }
async function handle${i}(item: Item${i}): Promise<string> {
  const result = await tools.github.create_issue({ title: item.name, labels: item.tags ?? [] });
  return (result as { id?: string }).id ?? String(item.id);
}
`;
  const source = Array.from({ length: 50 }, (_, i) => block(i)).join('\n'); // 250 lines
  await prepareScript(source, 'warm.ts');
  const esbuildTimes: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await prepareScript(source, 'bench.ts');
    esbuildTimes.push(performance.now() - started);
  }
  const ts = (await import('typescript')).default;
  const options = {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: true },
    fileName: 'bench.ts',
  };
  ts.transpileModule(source, options);
  const tsTimes: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    ts.transpileModule(source, options);
    tsTimes.push(performance.now() - started);
  }
  figures.push({
    suite: SUITE,
    name: 'strip types, 250-line script: esbuild (with source map)',
    value: median(esbuildTimes),
    unit: 'ms',
  });
  figures.push({
    suite: SUITE,
    name: 'strip types, 250-line script: ts.transpileModule (with source map)',
    value: median(tsTimes),
    unit: 'ms',
    note: `esbuild is ${round(median(tsTimes) / median(esbuildTimes))}x faster`,
  });
}

/** Collects garbage until memory stops moving, so RSS differences are the sandboxes'. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function quartiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return [0.25, 0.75].map((q) => round(sorted[Math.floor(sorted.length * q)] ?? NaN)).join('/');
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}

export const run: BenchSuite = async () => {
  const figures: BenchFigure[] = [];
  await coldStart(figures);
  await perCall(figures);
  await parked(figures);
  await stripping(figures);
  await warmSandboxes({ memoryBytes: MEMORY, count: 0 });
  return figures;
};
