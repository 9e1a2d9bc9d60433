/**
 * `npm run bench`: runs every suite (or those named: `npm run bench -- broker codegen`), prints the figures
 * and writes them to bench/results/latest.json. Figures are measured, never asserted.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchFigure {
  suite: string;
  name: string;
  value: number;
  unit: string;
  /** The target from the issue, in words, when there is one. */
  target?: string;
  /** Whether this run met the target, when the suite can tell. */
  met?: boolean;
  note?: string;
}

export type BenchSuite = () => Promise<BenchFigure[]>;

const here = dirname(fileURLToPath(import.meta.url));

// Each suite is a module in bench/ exporting `run: BenchSuite`.
const suites: Record<string, () => Promise<{ run: BenchSuite }>> = {
  connect: () => import('./connect.js'),
  daemon: () => import('./daemon.js'),
  cli: () => import('./cli.js'),
  broker: () => import('./broker.js'),
  codegen: () => import('./codegen.js'),
  runtime: () => import('./runtime.js'),
  badge: () => import('./badge.js'),
  web: () => import('./web.js'),
  adapters: () => import('./adapters.js'),
  serve: () => import('./serve.js'),
  trips: () => import('./broker-trips.js'),
  install: () => import('./install.js'),
  notify: () => import('./notify.js'),
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length ? wanted : Object.keys(suites);
  const figures: BenchFigure[] = [];
  for (const name of names) {
    const load = suites[name];
    if (!load) throw new Error(`unknown bench suite "${name}"; known: ${Object.keys(suites).join(', ')}`);
    process.stdout.write(`\n## ${name}\n`);
    const suiteFigures = await (await load()).run();
    for (const f of suiteFigures) {
      process.stdout.write(
        `  ${f.name.padEnd(60)} ${String(round(f.value)).padStart(12)} ${f.unit}${f.target ? `   (target: ${f.target}${verdict(f)})` : ''}${f.note ? `   ${f.note}` : ''}\n`,
      );
    }
    figures.push(...suiteFigures);
  }
  // The figures with a verdict once more, together: what the issues ask of this run.
  const judged = figures.filter((f) => f.met !== undefined);
  if (judged.length) {
    process.stdout.write('\n## targets\n');
    for (const f of judged)
      process.stdout.write(
        `  ${`${f.suite}: ${f.name}`.padEnd(70)} ${String(round(f.value)).padStart(8)} ${f.unit}   ${f.target}${verdict(f)}\n`,
      );
  }
  // latest.json is the last run of any suites; <suites>.json keeps the last run of these (e.g. cli-runtime.json).
  const text = JSON.stringify({ at: new Date().toISOString(), node: process.version, suites: names, figures }, null, 2) + '\n';
  for (const file of ['latest.json', `${names.join('-')}.json`]) {
    const out = join(here, 'results', file);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text);
    process.stdout.write(`${file === 'latest.json' ? '\n' : ''}wrote ${out}\n`);
  }
}

function verdict(f: BenchFigure): string {
  return f.met === undefined ? '' : f.met ? ', met' : ', NOT met';
}

function round(v: number): number {
  return Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 1000) / 1000;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
