/**
 * The CLI's reads over its daemon's socket, on the built CLI: `mcpx gen` lists tools through the running daemon's
 * warm connection (no server is started here), and `mcpx elicit count` on a shared store asks the daemon.
 */
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-run.js';
import { FIXTURE_PATHS } from '../helpers/fixture-servers.js';

const stops: Array<() => Promise<CliRun>> = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

/** A directory whose mcpx.json runs the dual-era fixture through `server.mjs`, a file the test can take away. */
function project(extraEnv: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-socket-reads-'));
  // The fixture runs as the program it is started as: it is told it is.
  const fixture = FIXTURE_PATHS['dual-era'];
  writeFileSync(
    join(dir, 'server.mjs'),
    `process.argv[1] = ${JSON.stringify(fixture)};\nawait import(${JSON.stringify(pathToFileURL(fixture).href)});\n`,
  );
  const config = join(dir, 'mcpx.json');
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [join(dir, 'server.mjs'), '--stdio'] } } }),
  );
  const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: join(dir, 'state'), ...extraEnv };
  const mcpx = (args: string[], cwd = dir): Promise<CliRun> => runCli(args, { cwd, env, timeoutMs: 60_000 });
  stops.push(() => mcpx(['daemon', 'stop', '--config', config]));
  return { dir, config, mcpx };
}

describe('reads over the daemon socket', () => {
  it('mcpx gen lists the tools through the running daemon, whose server this command could not start', async () => {
    const { dir, mcpx } = project();
    const warm = await mcpx(['call', 'fx.no_ask', 'text=hi']);
    expect(warm.code, warm.stderr).toBe(0);
    // The daemon's server is running; a server started here would find no script.
    renameSync(join(dir, 'server.mjs'), join(dir, 'gone.mjs'));

    const gen = await mcpx(['gen', '--out', 'gen']);
    expect(gen.code, gen.stderr).toBe(0);
    expect(gen.stdout).toContain(`wrote ${join(dir, 'gen', 'fx.ts')} (8 tools)`);
    const here = await mcpx(['gen', '--out', 'gen-here', '--no-daemon']);
    expect(here.code).not.toBe(0);
  }, 90_000);

  it('mcpx elicit count on a shared store counts what the daemon answers', async () => {
    // A relative store URL: the daemon resolves it where it started, a count run elsewhere would open another file.
    const { dir, config, mcpx } = project({ MCPX_STORE_URL: 'sqlite:questions.sqlite' });
    for (let i = 0; i < 2; i++) {
      const asked = await mcpx(['call', 'fx.ask_form', '--elicit', 'return']);
      expect(asked.code, asked.stderr).toBe(75);
    }
    expect((await mcpx(['elicit', 'count'])).stdout).toBe('mcpx: 2 waiting\n');
    const elsewhere = mkdtempSync(join(tmpdir(), 'mcpx-socket-reads-cwd-'));
    const counted = await mcpx(['elicit', 'count', '--json', '--config', config], elsewhere);
    expect(counted.code, counted.stderr).toBe(0);
    expect(JSON.parse(counted.stdout)).toEqual({ waiting: 2 });
    expect(dir).not.toBe(elsewhere);
  }, 90_000);
});
