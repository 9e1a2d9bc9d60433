/**
 * `mcpx elicit count`, the badge a shell prompt or tmux status line runs, as whole processes against `node -e 0`
 * (target: at most +60 ms over it): with a daemon holding two questions (one GET over its socket), and with no
 * daemon (one read-only query on the state file). Runs are interleaved so machine load hits every side alike;
 * medians are reported. BENCH_BADGE_BASELINE=<another build's cli.js> times that build too, interleaved, so a
 * change is measured before and after in one run under the same load.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchFigure, BenchSuite } from './index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');
const RUNS = Number(process.env.BENCH_BADGE_RUNS ?? 15);
const BASELINE = process.env.BENCH_BADGE_BASELINE;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export const run: BenchSuite = async () => {
  if (!existsSync(cli)) execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-badge-'));
  const fixture = join(root, 'examples', 'servers', 'dual-era.mjs');
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [fixture, '--stdio'], era: 'modern' } } }),
  );
  const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: join(dir, 'state') };
  const mcpx = (args: string[]) => {
    try {
      return execFileSync(process.execPath, [cli, ...args], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    } catch (error) {
      return (error as { stdout?: string }).stdout ?? ''; // exit 75: the question waits, as wanted
    }
  };
  // CPU time (user + system) of the whole process, from /usr/bin/time when installed: on a loaded machine wall time
  // mostly measures the wait for a core; CPU time is what the command itself costs.
  const haveTime = existsSync('/usr/bin/time');
  const cpuMs = (args: string[]): number => {
    const run = spawnSync('/usr/bin/time', ['-f', 'CPU %U %S', process.execPath, ...args], { cwd: dir, env, encoding: 'utf8' });
    const match = /CPU ([\d.]+) ([\d.]+)/.exec(run.stderr);
    if (!match) throw new Error(`/usr/bin/time printed ${JSON.stringify(run.stderr)}`);
    return (Number(match[1]) + Number(match[2])) * 1000;
  };
  const cpuSamples = { node: [] as number[], daemon: [] as number[], store: [] as number[] };
  const baseline = { daemon: [] as number[], store: [] as number[], cpuDaemon: [] as number[], cpuStore: [] as number[] };
  const timed = (program: string, args: string[], expect: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      execFile(program, args, { cwd: dir, env, timeout: 30_000 }, (error, stdout) => {
        const ms = performance.now() - started;
        if (error) return reject(error);
        if (stdout.trim() !== expect)
          return reject(new Error(`${args.join(' ')} printed ${JSON.stringify(stdout)}, expected ${JSON.stringify(expect)}`));
        resolve(ms);
      });
    });

  mcpx(['call', 'fx.ask_form', '--elicit', 'return']);
  mcpx(['call', 'fx.ask_form', '--elicit', 'return']);
  const samples = { node: [] as number[], daemon: [] as number[], store: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    samples.node.push(await timed(process.execPath, ['-e', '0'], ''));
    samples.daemon.push(await timed(process.execPath, [cli, 'elicit', 'count'], 'mcpx: 2 waiting'));
    if (BASELINE) baseline.daemon.push(await timed(process.execPath, [BASELINE, 'elicit', 'count'], 'mcpx: 2 waiting'));
    if (haveTime) {
      cpuSamples.node.push(cpuMs(['-e', '0']));
      cpuSamples.daemon.push(cpuMs([cli, 'elicit', 'count']));
      if (BASELINE) baseline.cpuDaemon.push(cpuMs([BASELINE, 'elicit', 'count']));
    }
  }
  // Modern questions outlive their daemon (resumable), so the store path still counts two.
  mcpx(['daemon', 'stop']);
  for (let i = 0; i < RUNS; i++) {
    samples.node.push(await timed(process.execPath, ['-e', '0'], ''));
    samples.store.push(await timed(process.execPath, [cli, 'elicit', 'count'], 'mcpx: 2 waiting'));
    if (BASELINE) baseline.store.push(await timed(process.execPath, [BASELINE, 'elicit', 'count'], 'mcpx: 2 waiting'));
    if (haveTime) cpuSamples.store.push(cpuMs([cli, 'elicit', 'count']));
    if (haveTime && BASELINE) baseline.cpuStore.push(cpuMs([BASELINE, 'elicit', 'count']));
  }
  const node = median(samples.node);
  const figures: BenchFigure[] = [
    { suite: 'badge', name: 'node -e 0 (whole process, median)', value: node, unit: 'ms' },
    { suite: 'badge', name: 'mcpx elicit count, daemon running (median)', value: median(samples.daemon), unit: 'ms' },
    {
      suite: 'badge',
      name: 'mcpx elicit count, daemon running, over node -e 0',
      value: median(samples.daemon) - node,
      unit: 'ms',
      target: '<= +60 ms',
    },
    { suite: 'badge', name: 'mcpx elicit count, no daemon (state file) (median)', value: median(samples.store), unit: 'ms' },
    {
      suite: 'badge',
      name: 'mcpx elicit count, no daemon, over node -e 0',
      value: median(samples.store) - node,
      unit: 'ms',
      target: '<= +60 ms',
    },
  ];
  if (BASELINE) {
    figures.push(
      {
        suite: 'badge',
        name: 'baseline build, daemon running, over node -e 0',
        value: median(baseline.daemon) - node,
        unit: 'ms',
        note: BASELINE,
      },
      {
        suite: 'badge',
        name: 'baseline build, no daemon, over node -e 0',
        value: median(baseline.store) - node,
        unit: 'ms',
        note: BASELINE,
      },
    );
  }
  if (haveTime) {
    const nodeCpu = mean(cpuSamples.node);
    figures.push(
      { suite: 'badge', name: 'CPU: node -e 0 (user + system, mean)', value: nodeCpu, unit: 'ms' },
      {
        suite: 'badge',
        name: 'CPU: mcpx elicit count, daemon running, over node -e 0',
        value: mean(cpuSamples.daemon) - nodeCpu,
        unit: 'ms',
        note: '/usr/bin/time, 10 ms resolution, means',
      },
      {
        suite: 'badge',
        name: 'CPU: mcpx elicit count, no daemon, over node -e 0',
        value: mean(cpuSamples.store) - nodeCpu,
        unit: 'ms',
        note: '/usr/bin/time, 10 ms resolution, means',
      },
    );
    if (BASELINE) {
      figures.push(
        {
          suite: 'badge',
          name: 'CPU: baseline build, daemon running, over node -e 0',
          value: mean(baseline.cpuDaemon) - nodeCpu,
          unit: 'ms',
        },
        {
          suite: 'badge',
          name: 'CPU: baseline build, no daemon, over node -e 0',
          value: mean(baseline.cpuStore) - nodeCpu,
          unit: 'ms',
        },
      );
    }
  }
  return figures;
};
