/**
 * What installing mcpx costs a user: the packed and unpacked size of the tarball (`npm pack`), its largest files,
 * and the time of `npm install <tarball>` into a fresh directory with the npm cache warm (a first, untimed install
 * fills it), as `npm i mcpx` pays once the registry's files are cached. Run: npm run bench -- install
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchFigure, BenchSuite } from './index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MiB = 1024 * 1024;

interface PackedFile {
  path: string;
  size: number;
}
interface PackReport {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: PackedFile[];
}

function npm(args: string[], cwd: string): Promise<{ seconds: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    execFile('npm', args, { cwd, maxBuffer: 64 * MiB, timeout: 900_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`npm ${args.join(' ')} failed: ${error.message}\n${stderr.slice(-2000)}`));
      resolve({ seconds: (performance.now() - started) / 1000, stdout });
    });
  });
}

/** Sizes by top-level part of the package (dist, examples/servers, ...), largest first. */
function byPart(files: PackedFile[]): Array<[string, number]> {
  const parts = new Map<string, number>();
  for (const file of files) {
    const [first, second] = file.path.split('/');
    const part = second === undefined ? first! : `${first}/`;
    parts.set(part, (parts.get(part) ?? 0) + file.size);
  }
  return [...parts].sort((a, b) => b[1] - a[1]);
}

export const run: BenchSuite = async () => {
  if (!existsSync(join(root, 'dist', 'cli.js'))) execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-install-'));
  try {
    // dist/ is built above: the pack skips prepack's second build.
    const packed = await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], root);
    const report = (JSON.parse(packed.stdout) as PackReport[])[0]!;
    const tarball = join(dir, report.filename);
    const largest = [...report.files].sort((a, b) => b.size - a.size).slice(0, 5);

    const install = async (name: string, scripts: boolean): Promise<number> => {
      const app = join(dir, name);
      mkdirSync(app);
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: `bench-${name}`, private: true }));
      const args = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball];
      return (await npm(scripts ? args : [...args, '--ignore-scripts'], app)).seconds;
    };
    const first = await install('first', false); // fills the npm cache with every dependency
    const noScripts = await install('no-scripts', false);
    // sqlite3's install script fetches a prebuilt binary from GitHub, else compiles SQLite (minutes): the npm cache
    // does not hold either, so this is what a user without access to the prebuilt pays on every install.
    const warm = await install('warm', true);
    const native = existsSync(join(dir, 'warm', 'node_modules', 'sqlite3', 'build', 'Release', 'obj.target'))
      ? 'sqlite3 compiled from source (its prebuilt binary could not be fetched)'
      : 'sqlite3 from its prebuilt binary';
    const installedBytes = Number(
      execFileSync('du', ['-sb', join(dir, 'warm', 'node_modules')], { encoding: 'utf8' }).split('\t')[0],
    );

    const figure = (name: string, value: number, unit: string, note?: string): BenchFigure => ({
      suite: 'install',
      name,
      value,
      unit,
      ...(note ? { note } : {}),
    });
    return [
      figure('packed tarball (npm pack)', report.size / MiB, 'MiB', `${report.entryCount} files`),
      figure(
        'unpacked package',
        report.unpackedSize / MiB,
        'MiB',
        byPart(report.files)
          .slice(0, 4)
          .map(([part, bytes]) => `${part} ${(bytes / MiB).toFixed(2)} MiB`)
          .join(', '),
      ),
      figure(
        'largest file in the package',
        (largest[0]?.size ?? 0) / 1024,
        'KiB',
        largest.map((f) => `${f.path} ${Math.round(f.size / 1024)} KiB`).join(', '),
      ),
      figure('npm install <tarball>, fresh dir, npm cache warm', warm, 's', native),
      figure(
        'npm install <tarball> --ignore-scripts, fresh dir, npm cache warm',
        noScripts,
        's',
        `download and unpack only; the first install (filling the cache) took ${first.toFixed(1)} s`,
      ),
      figure('installed node_modules', installedBytes / MiB, 'MiB', 'mcpx and every dependency'),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
