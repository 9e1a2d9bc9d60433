/**
 * mcpx as users install it: the packed tarball (`npm pack`) laid out the way npm lays out a global install
 * (`<prefix>/bin/mcpx` a link to `lib/node_modules/mcpx/dist/cli.js`) and a project install
 * (`node_modules/.bin/mcpx`), then run through those links. The CLI once ran only when its path ended in
 * `cli.js`, so through a link named `mcpx` it did nothing and exited 0.
 *
 * The dependencies come from this checkout's node_modules (a link) so the test takes seconds; `npm run
 * test:install` does the same with real `npm install -g` and `npm install` of the tarball (minutes).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      file,
      args,
      { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** Places the unpacked package at `dir` with its dependencies reachable, as npm would. */
function placePackage(unpacked: string, dir: string): void {
  cpSync(unpacked, dir, { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

let work: string;
let unpacked: string;
let version: string;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: build first (npm run build)');
  work = mkdtempSync(join(tmpdir(), 'mcpx-install-'));
  const packed = await run('npm', ['pack', '--pack-destination', work, '--silent', '--ignore-scripts'], root, {
    HOME: process.env.HOME ?? work,
  });
  expect(packed.code, packed.stderr).toBe(0);
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball: ${packed.stderr}`);
  version = /mcpx-(.+)\.tgz$/.exec(tarball)![1]!;
  const untar = await run('tar', ['-xzf', join(work, tarball), '-C', work], work);
  expect(untar.code, untar.stderr).toBe(0);
  unpacked = join(work, 'package');
});

describe('the packed package', () => {
  it('runs through the global bin link: mcpx --version and a call to the bundled example server', async () => {
    const prefix = join(work, 'prefix');
    mkdirSync(join(prefix, 'lib', 'node_modules'), { recursive: true });
    mkdirSync(join(prefix, 'bin'));
    placePackage(unpacked, join(prefix, 'lib', 'node_modules', 'mcpx'));
    symlinkSync('../lib/node_modules/mcpx/dist/cli.js', join(prefix, 'bin', 'mcpx'));
    const bin = join(prefix, 'bin');

    const shown = await run('mcpx', ['--version'], work, { PATH: `${bin}:${process.env.PATH ?? ''}` });
    expect(shown).toMatchObject({ code: 0, stdout: `${version}\n` });

    const server = join(prefix, 'lib', 'node_modules', 'mcpx', 'examples', 'servers', 'dual-era.mjs');
    writeFileSync(
      join(work, 'global.json'),
      JSON.stringify({ mcpServers: { fixture: { command: process.execPath, args: [server, '--stdio'] } } }),
    );
    const called = await run('mcpx', ['call', 'fixture.no_ask', 'text=hello', '--config', 'global.json'], work, {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      MCPX_DAEMON: 'inline',
      MCPX_STATE_DIR: join(work, 'state-global'),
    });
    expect(called.stderr).toBe('');
    expect(called.code).toBe(0);
    expect(called.stdout).toContain('hello');
  });

  it('runs in a project through node_modules/.bin: npx mcpx call', async () => {
    const app = join(work, 'app');
    mkdirSync(join(app, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', type: 'module', dependencies: { mcpx: version } }),
    );
    placePackage(unpacked, join(app, 'node_modules', 'mcpx'));
    symlinkSync('../mcpx/dist/cli.js', join(app, 'node_modules', '.bin', 'mcpx'));
    writeFileSync(
      join(app, 'mcpx.json'),
      JSON.stringify({
        mcpServers: { fixture: { command: 'node', args: ['node_modules/mcpx/examples/servers/dual-era.mjs', '--stdio'] } },
      }),
    );
    const env = { MCPX_DAEMON: 'inline', MCPX_STATE_DIR: join(work, 'state-app'), npm_config_offline: 'true' };

    const shown = await run('npx', ['--no', '--', 'mcpx', '--version'], app, env);
    expect(shown).toMatchObject({ code: 0, stdout: `${version}\n` });

    const called = await run('npx', ['--no', '--', 'mcpx', 'call', 'fixture.no_ask', 'text=from npx'], app, env);
    expect(called.stderr).toBe('');
    expect(called.code).toBe(0);
    expect(called.stdout).toContain('from npx');
  });

  it('type-checks in a strict project that has no @types/node', async () => {
    const app = join(work, 'typed-app');
    mkdirSync(join(app, 'node_modules'), { recursive: true });
    placePackage(unpacked, join(app, 'node_modules', 'mcpx'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'typed-app', version: '1.0.0', type: 'module' }));
    writeFileSync(
      join(app, 'main.ts'),
      [
        "import { createMcpx, type McpxOptions, type ScriptSource } from 'mcpx';",
        'const options: McpxOptions = {};',
        'const script: ScriptSource | undefined = undefined;',
        'export const made = [createMcpx, options, script];',
        '',
      ].join('\n'),
    );
    // The consuming project's strict check, asked only about mcpx's own declarations (a dependency's may
    // name Node's globals, and checking all of them takes a minute on a busy machine).
    const ts = (await import('typescript')).default;
    const program = ts.createProgram({
      rootNames: [join(app, 'main.ts')],
      options: {
        strict: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        noEmit: true,
        types: [],
      },
    });
    const ours = program
      .getSourceFiles()
      .filter((file) => file.fileName.includes('/node_modules/mcpx/') || file.fileName.endsWith('/main.ts'))
      .flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)])
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(program.getSourceFiles().some((file) => file.fileName.endsWith('/node_modules/mcpx/dist/index.d.ts'))).toBe(true);
    expect(ours).toEqual([]);
  });
});
