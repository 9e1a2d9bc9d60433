// Opt-in meter for the suite's cost (MCPX_TEST_CPU=<file.jsonl>, see vitest.config.ts): per test file, the CPU of
// its worker and of the children it reaped (/proc/self/stat utime+stime, cutime+cstime), wall time and the
// processes it started. Load on the machine stretches wall time but hardly CPU, so CPU ranks files fairly.
import { appendFileSync, readFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { promisify } from 'node:util';
import { afterAll } from 'vitest';

const out = process.env.MCPX_TEST_CPU;
const TICKS_PER_SECOND = 100;

function cpuMs(): { self: number; children: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After "pid (comm) ", field 3 is index 0: utime 14, stime 15, cutime 16, cstime 17.
  const tick = (n: number): number => Number(fields[n - 3]) * (1000 / TICKS_PER_SECOND);
  return { self: tick(14) + tick(15), children: tick(16) + tick(17) };
}

const spawned: string[] = [];
if (out) {
  const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
  const counted = (original: (...args: unknown[]) => unknown) =>
    function (this: unknown, ...args: unknown[]): unknown {
      const [command, commandArgs] = args as [string, unknown];
      const script = command.endsWith('node') && Array.isArray(commandArgs) ? String(commandArgs[0]) : command;
      spawned.push(script.split('/').slice(-2).join('/'));
      return original.apply(this, args);
    };
  for (const name of ['spawn', 'execFile', 'fork', 'exec', 'spawnSync', 'execFileSync', 'execSync']) {
    const original = childProcess[name] as ((...args: unknown[]) => unknown) & { [promisify.custom]?: typeof original };
    const wrapped = counted(original) as typeof original;
    // promisify(execFile) resolves { stdout, stderr } through this symbol; keep it (and count it).
    const custom = original[promisify.custom];
    if (custom) wrapped[promisify.custom] = counted(custom);
    childProcess[name] = wrapped;
  }
  syncBuiltinESMExports();
}

let start = cpuMs();
let wallStart = Date.now();
// vitest reads the first parameter as the fixtures it must build (an object pattern); the file is the second.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, suite) => {
  if (!out) return;
  const end = cpuMs();
  const counts: Record<string, number> = {};
  for (const command of spawned) counts[command] = (counts[command] ?? 0) + 1;
  const file = (suite as { filepath?: string }).filepath ?? 'unknown';
  appendFileSync(
    out,
    JSON.stringify({
      file: file.slice(file.indexOf('/test/') + 1),
      pid: process.pid,
      processCpuMs: end.self,
      selfMs: end.self - start.self,
      childrenMs: end.children - start.children,
      wallMs: Date.now() - wallStart,
      spawns: spawned.length,
      counts,
    }) + '\n',
  );
  start = end;
  wallStart = Date.now();
});
