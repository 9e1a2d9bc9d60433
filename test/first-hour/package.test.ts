/**
 * Issue #35 friction: the packed tarball was 16.7 MiB unpacked, 10.9 MiB of it 201 source maps. What `npm pack`
 * would put in the tarball (its file list, from the built dist/) holds the CLI, the library and its declarations,
 * no source map, and stays under 8 MiB unpacked. test/install (npm run test:install) installs the real tarball.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

interface Packed {
  unpackedSize: number;
  files: Array<{ path: string; size: number }>;
}

it('the tarball holds the CLI, the library and its types, and no source maps, in under 8 MiB unpacked', async () => {
  if (!existsSync(join(root, 'dist', 'cli.js'))) throw new Error('dist/ is missing: build first (npx tsup)');
  // --ignore-scripts: the file list of the dist/ built for the tests, without prepack building it again.
  const stdout = await new Promise<string>((done, fail) =>
    execFile('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, timeout: 60_000 }, (error, out) =>
      error ? fail(error) : done(out),
    ),
  );
  const [packed] = JSON.parse(stdout) as Packed[];
  const paths = packed!.files.map((f) => f.path);
  expect(paths).toEqual(expect.arrayContaining(['dist/cli.js', 'dist/index.js', 'dist/index.d.ts', 'package.json']));
  expect(paths.filter((p) => p.endsWith('.map'))).toEqual([]);
  expect(packed!.unpackedSize).toBeLessThan(8 * 1024 * 1024);
});
