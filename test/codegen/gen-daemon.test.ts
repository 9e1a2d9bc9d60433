import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/surfaces/cli/main.js';
import { runDaemon, type RunningDaemon } from '../../src/surfaces/daemon/daemon.js';
import { daemonPaths } from '../../src/surfaces/daemon/paths.js';
import { openDaemonParts } from '../../src/surfaces/daemon/daemon-wiring.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { captureIO, type CliRun } from '../cli/helpers/run-cli.js';

async function run(argv: string[], cwd: string, env: Record<string, string | undefined>): Promise<CliRun> {
  const c = captureIO({ env, cwd });
  const code = await main(argv, c.io);
  return { code, stdout: c.out(), stderr: c.err() };
}

function setup(): { dir: string; configPath: string; env: Record<string, string | undefined> } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-gen-daemon-'));
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(
    configPath,
    JSON.stringify({ mcpServers: { 'fx-dual': stdioFixture('dual-era'), 'fx-legacy': stdioFixture('legacy-v1') } }),
  );
  return { dir, configPath, env: { ...process.env, MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG: undefined } };
}

describe('mcpx gen with a daemon', () => {
  let daemon: RunningDaemon | undefined;
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
  });

  it('lists tools over the running daemon of the config and writes the same files as without it', async () => {
    const { dir, configPath, env } = setup();
    daemon = await runDaemon({
      paths: daemonPaths(env, configPath),
      version: '0.1.0-test',
      openParts: () => openDaemonParts({ env, cwd: dir, configPath, version: '0.1.0-test' }),
      idleMs: 0,
    });
    expect(daemon.core.sessions()).toEqual([]);

    const warm = await run(['gen', '--out', 'warm'], dir, env);
    expect(warm.stderr).toBe('');
    expect(warm.code).toBe(0);
    expect(warm.stdout).toContain(`wrote ${join(dir, 'warm', 'fx-dual.ts')} (8 tools)`);
    // The daemon opened its instance to list: the servers were not started by gen.
    expect(daemon.core.sessions()).toHaveLength(1);

    const cold = await run(['gen', '--out', 'cold', '--no-daemon'], dir, env);
    expect(cold.code).toBe(0);
    for (const file of ['fx-dual.ts', 'fx-legacy.ts', 'index.ts']) {
      expect(readFileSync(join(dir, 'warm', file), 'utf8')).toBe(readFileSync(join(dir, 'cold', file), 'utf8'));
    }
    // So --check agrees whichever way the tools were listed.
    expect((await run(['gen', '--out', 'cold', '--check'], dir, env)).code).toBe(0);
  });

  it('reports a server the daemon cannot find as an error, not a silent fallback', async () => {
    const { dir, configPath, env } = setup();
    daemon = await runDaemon({
      paths: daemonPaths(env, configPath),
      version: '0.1.0-test',
      openParts: () => openDaemonParts({ env, cwd: dir, configPath, version: '0.1.0-test' }),
      idleMs: 0,
    });
    const result = await run(['gen', 'nope', '--out', 'gen'], dir, env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('nope');
  });

  it('starts the servers itself when the daemon state file points at a socket nobody listens on', async () => {
    const { dir, configPath, env } = setup();
    const paths = daemonPaths(env, configPath);
    mkdirSync(join(dir, 'state'), { recursive: true });
    // A live pid (this process) but no socket: what a daemon killed with SIGKILL leaves behind.
    writeFileSync(
      paths.state,
      JSON.stringify({ pid: process.pid, version: '0.1.0-test', startedAt: Date.now(), socket: join(dir, 'state', 'gone.sock') }),
    );
    const result = await run(['gen', 'fx-dual', '--out', 'gen'], dir, env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('(8 tools)');
  });
});
