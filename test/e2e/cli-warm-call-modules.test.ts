/**
 * A warm `mcpx call` (its daemon up) is a thin client: the built CLI loads none of the MCP SDK, zod, ajv or keyv,
 * which the daemon has loaded already. A module hook records every module the call process loads.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli-run.js';

const root = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'mcpx-warm-modules-'));
const config = join(dir, 'mcpx.json');
writeFileSync(
  config,
  JSON.stringify({
    mcpServers: { legacy: { command: 'node', args: [join(root, 'examples', 'servers', 'legacy-v1.mjs'), '--stdio'] } },
  }),
);
const loadedLog = join(dir, 'loaded.txt');
// Registered before the CLI loads: appends the URL of every module resolved in the call's process (not the daemon's).
writeFileSync(
  join(dir, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(loadedLog)}, resolved.url + '\\n');
  return resolved;
}
`,
);
const register = join(dir, 'register.mjs');
writeFileSync(register, "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
const env = { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: join(dir, 'state') };

function mcpx(
  args: string[],
  nodeArgs: string[] = [],
  program = CLI,
): Promise<{ code: number; stdout: string; stderr: string; pid: number }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [...nodeArgs, program, ...args],
      { cwd: dir, env, timeout: 60_000 },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr, pid: child.pid ?? 0 }),
    );
  });
}

afterAll(async () => {
  await mcpx(['daemon', 'stop', '--config', config]);
});

describe('a warm mcpx call (built CLI)', () => {
  it('loads none of the SDK, zod, ajv or keyv: the daemon holds them', async () => {
    const cold = await mcpx(['call', 'legacy.no_ask', 'text=cold', '--config', config]);
    expect(cold.stderr).toBe('');
    expect(cold.code).toBe(0);
    const warm = await mcpx(['call', 'legacy.no_ask', 'text=warm', '--config', config], ['--import', register]);
    expect(warm.code).toBe(0);
    expect(warm.stdout).toContain('warm');
    const loaded = readFileSync(loadedLog, 'utf8').split('\n').filter(Boolean);
    expect(loaded).toContain(pathToFileURL(CLI).href);
    const heavy = loaded.filter((url) => /node_modules\/(@modelcontextprotocol|zod|ajv|keyv|@keyv)\//.test(url));
    const bundled = loaded.filter((url) => url.startsWith(pathToFileURL(join(root, 'dist')).href));
    expect(heavy).toEqual([]);
    // The bundles inline zod and ajv: the dist files a warm call loads stay small.
    const bytes = bundled.reduce((sum, url) => sum + readFileSync(new URL(url)).length, 0);
    expect(bytes).toBeLessThan(300 * 1024);
  });

  it('runs from one file of dist/, as the bin (CommonJS) and as dist/cli.js: Node resolves and links nothing else', async () => {
    const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: { mcpx: string } };
    for (const program of [join(root, bin.mcpx), CLI]) {
      writeFileSync(loadedLog, '');
      // With --import, Node loads even a CommonJS main through the module hooks, so it is recorded too.
      const warm = await mcpx(['call', 'legacy.no_ask', 'text=one-file', '--config', config], ['--import', register], program);
      expect(warm.code, warm.stderr).toBe(0);
      expect(warm.stdout).toContain('one-file');
      const dist = pathToFileURL(join(root, 'dist')).href;
      const loaded = readFileSync(loadedLog, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith(dist));
      expect(loaded).toEqual([pathToFileURL(program).href]);
    }
  });

  it('a cold call whose config passed before starts the daemon from the bin alone, too', async () => {
    const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: { mcpx: string } };
    const program = join(root, bin.mcpx);
    // The daemon the call starts runs with the same --import: each line says which process loaded the module.
    const byPidLog = join(dir, 'loaded-by-pid.txt');
    writeFileSync(
      join(dir, 'hooks-pid.mjs'),
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(byPidLog)}, process.pid + ' ' + resolved.url + '\\n');
  return resolved;
}
`,
    );
    const registerByPid = join(dir, 'register-pid.mjs');
    writeFileSync(registerByPid, "import { register } from 'node:module';\nregister('./hooks-pid.mjs', import.meta.url);\n");
    // The first cold call checks the config (and loads the program to do it); the next one remembers it passed.
    let pid = 0;
    for (const text of ['first', 'second']) {
      expect((await mcpx(['daemon', 'stop', '--config', config])).code).toBe(0);
      writeFileSync(byPidLog, '');
      const cold = await mcpx(
        ['call', 'legacy.no_ask', `text=${text}`, '--config', config],
        ['--import', registerByPid],
        program,
      );
      expect(cold.code, cold.stderr).toBe(0);
      expect(cold.stdout).toContain(text);
      pid = cold.pid;
    }
    const dist = pathToFileURL(join(root, 'dist')).href;
    const loaded = readFileSync(byPidLog, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith(`${pid} `))
      .map((line) => line.slice(`${pid} `.length))
      .filter((url) => url.startsWith(dist));
    expect(loaded).toEqual([pathToFileURL(program).href]);
  });
});
