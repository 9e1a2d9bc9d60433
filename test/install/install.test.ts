/**
 * mcpx as users install it: the packed tarball (`npm pack`, whose prepack builds dist/) installed for real with
 * `npm install -g --prefix` and `npm install` into a fresh project, dependencies from the registry (the npm cache
 * reused), nothing linked to this checkout: a dependency missing from package.json fails here. Then run through
 * npm's links: `<prefix>/bin/mcpx` and `node_modules/.bin/mcpx` (the CLI once ran only when its path ended in
 * `cli.js`, so through a link named `mcpx` it did nothing and exited 0).
 *
 * `npm run test:install` runs this (minutes on a cold cache); it is not part of `npm test`.
 *
 * sqlite3's install fetches a prebuilt binary and compiles from source when it cannot (here: no network but the
 * registry, 5 minutes per install). The checkout's own binary is offered as that prebuilt one, through
 * prebuild-install's documented local-prebuilds setting, so each install gets it as a connected user would.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
      { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, timeout: 840_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

let work: string;
let tarball: string;
let version: string;
/** npm's own cache and user config (from the real HOME: its nodedir, registry), so a warm machine installs offline. */
let npmEnv: Record<string, string>;
const quiet = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

/** Nothing under `dir` links into this checkout: every installed file is a real copy. */
function linksIntoCheckout(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string): void => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) {
      const target = existsSync(path) ? realpathSync(path) : path;
      if (target === root || target.startsWith(root + '/')) found.push(path);
      return;
    }
    if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(dir);
  return found;
}

/** A fresh project with the tarball installed in it: one, shared by the tests that need it. */
let project: Promise<string> | undefined;
function installedProject(): Promise<string> {
  project ??= (async () => {
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', type: 'module' }));
    const installed = await run('npm', ['install', ...quiet, tarball], app, npmEnv);
    expect(installed.code, installed.stderr).toBe(0);
    expect(linksIntoCheckout(join(app, 'node_modules'))).toEqual([]);
    return app;
  })();
  return project;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mcpx-install-'));
  const home = { HOME: process.env.HOME ?? work };
  const [cache, userconfig] = await Promise.all(
    ['cache', 'userconfig'].map((key) => run('npm', ['config', 'get', key], root, home)),
  );
  npmEnv = {
    npm_config_cache: cache!.stdout.trim(),
    npm_config_userconfig: userconfig!.stdout.trim(),
    npm_config_sqlite3_local_prebuilds: await sqlitePrebuilds(),
  };
  // Not --ignore-scripts: prepack builds dist/, as it does for a fresh clone.
  const packed = await run('npm', ['pack', '--pack-destination', work, '--silent'], root, {
    HOME: process.env.HOME ?? work,
    ...npmEnv,
  });
  expect(packed.code, packed.stderr).toBe(0);
  const file = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (!file) throw new Error(`npm pack wrote no tarball: ${packed.stderr}`);
  tarball = join(work, file);
  version = /mcpx-(.+)\.tgz$/.exec(file)![1]!;
});

/** A dir holding the checkout's sqlite3 binary packed as prebuild-install names and lays out a prebuilt one. */
async function sqlitePrebuilds(): Promise<string> {
  const sqlite = join(root, 'node_modules', 'sqlite3');
  const { version } = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as { version: string };
  const dir = join(work, 'prebuilds');
  mkdirSync(dir);
  const name = `sqlite3-v${version}-napi-v6-${process.platform}-${process.arch}.tar.gz`;
  const packed = await run('tar', ['czf', join(dir, name), 'build/Release/node_sqlite3.node'], sqlite);
  expect(packed.code, packed.stderr).toBe(0);
  return dir;
}

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('runs through the global bin link: mcpx --version and a call to the bundled example server', async () => {
    const prefix = join(work, 'prefix');
    const installed = await run('npm', ['install', '-g', '--prefix', prefix, ...quiet, tarball], work, npmEnv);
    expect(installed.code, installed.stderr).toBe(0);
    expect(linksIntoCheckout(prefix)).toEqual([]);
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
    const app = await installedProject();
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

  it('type-checks in a strict project with @types/node, every error counted', async () => {
    const app = await installedProject();
    // The README's instruction: mcpx's declarations use the MCP SDK's, which name Node's `Buffer`.
    const nodeTypes = (
      JSON.parse(readFileSync(join(root, 'node_modules', '@types', 'node', 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const added = await run('npm', ['install', ...quiet, '--save-dev', `@types/node@${nodeTypes}`], app, npmEnv);
    expect(added.code, added.stderr).toBe(0);
    writeFileSync(
      join(app, 'main.ts'),
      [
        "import { createMcpx, type McpxOptions } from 'mcpx';",
        "import type { ScriptSource } from 'mcpx/runtime';",
        'const options: McpxOptions = {};',
        'const script: ScriptSource | undefined = undefined;',
        'export const made = [createMcpx, options, script];',
        '',
      ].join('\n'),
    );
    const ts = (await import('typescript')).default;
    const program = ts.createProgram({
      rootNames: [join(app, 'main.ts')],
      options: {
        strict: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        noEmit: true,
        types: ['node'],
        typeRoots: [join(app, 'node_modules', '@types')],
      },
    });
    // Every file's diagnostics, the dependencies' declarations included: nothing filtered out.
    const all = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(program.getSourceFiles().some((file) => file.fileName.endsWith('/node_modules/mcpx/dist/index.d.ts'))).toBe(true);
    expect(all).toEqual([]);
  });
});
