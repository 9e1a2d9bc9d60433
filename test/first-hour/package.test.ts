/**
 * Issue #35 item 7 and a friction: `npm pack` from a fresh clone made a tarball without dist/, and the tarball was
 * 16.7 MiB unpacked, 10.9 MiB of it 201 source maps. Here, what `npm pack` would put in the tarball (its file list):
 * from a fresh copy of the sources, dist/ built by prepack; from the built checkout, no source map, under 8 MiB.
 * test/install (npm run test:install) installs the real tarball.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { declarationsBuilt } from '../helpers/declarations.js';

const root = resolve(import.meta.dirname, '..', '..');

// dist/*.d.ts, which npm test builds beside the tests (test/helpers/declarations.ts).
beforeAll(() => declarationsBuilt(), 600_000);

interface Packed {
  unpackedSize: number;
  files: Array<{ path: string; size: number }>;
}

/** `npm pack --dry-run --json` in `cwd`: the file list the tarball would have. */
function packList(cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Packed> {
  return new Promise((done, fail) =>
    execFile('npm', ['pack', '--dry-run', '--json', ...args], { cwd, env, timeout: 240_000 }, (error, out, stderr) =>
      error ? fail(new Error(`${error.message}\n${stderr}`)) : done((JSON.parse(out) as Packed[])[0]!),
    ),
  );
}

it('npm pack from a fresh clone builds dist/ first (prepack), so the tarball has the CLI', async () => {
  const clone = mkdtempSync(join(tmpdir(), 'mcpx-pack-'));
  for (const entry of ['package.json', 'tsup.config.ts', 'tsconfig.json', 'src', 'examples', 'skills', 'docs', 'README.md'])
    cpSync(join(root, entry), join(clone, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));
  expect(existsSync(join(clone, 'dist'))).toBe(false);
  // The CLI alone (MCPX_BUILD=cli, as the quick start builds it): seconds, not the minutes of the declarations.
  const packed = await packList(clone, [], { ...process.env, MCPX_BUILD: 'cli' });
  expect(packed.files.map((f) => f.path)).toContain('dist/cli.js');
}, 300_000);

it('the tarball holds the CLI, the library and its types, and no source maps, in under 8 MiB unpacked', async () => {
  if (!existsSync(join(root, 'dist', 'cli.js'))) throw new Error('dist/ is missing: build first (npx tsup)');
  // --ignore-scripts: the file list of the dist/ built for the tests, without prepack building it again.
  const packed = await packList(root, ['--ignore-scripts']);
  const paths = packed!.files.map((f) => f.path);
  expect(paths).toEqual(expect.arrayContaining(['dist/cli.js', 'dist/index.js', 'dist/index.d.ts', 'package.json']));
  expect(paths.filter((p) => p.endsWith('.map'))).toEqual([]);
  expect(packed!.unpackedSize).toBeLessThan(8 * 1024 * 1024);
});
