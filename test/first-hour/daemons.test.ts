/**
 * Issue #35 friction: one daemon per config started silently, and no way to see or stop them all. On the built CLI:
 * a call that starts a daemon says so on a terminal (one line, on stderr); `mcpx daemon status --all` lists every
 * daemon of this user (one per config) and `mcpx daemon stop --all` stops them all.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, type CliRun } from '../helpers/cli-run.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { openTerminal } from '../cli/helpers/tmux.js';

let home: string;
let env: Record<string, string>;
const configs: string[] = [];

const mcpx = (args: string[]): Promise<CliRun> => runCli(args, { cwd: home, env, timeoutMs: 60_000 });

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcpx-daemons-'));
  for (const name of ['alpha', 'beta']) {
    mkdirSync(join(home, name));
    const config = join(home, name, 'mcpx.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fx: stdioFixture('legacy-v1') } }));
    configs.push(config);
  }
  env = { PATH: process.env.PATH ?? '', HOME: home, MCPX_CONFIG_DIR: join(home, 'config'), MCPX_STATE_DIR: join(home, 'state') };
});
afterAll(async () => {
  for (const config of configs) await mcpx(['daemon', 'stop', '--config', config]);
});

describe('the daemons of this user', () => {
  it('a call that starts a daemon says so on a terminal, naming its config', async () => {
    const command = ['env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, CLI];
    const call = [...command, 'call', 'fx.no_ask', 'text=hi', '--config', configs[0]!];
    const terminal = openTerminal(['sh', '-c', `"$@"; echo "EXIT=$?"`, 'sh', ...call], { cwd: home });
    try {
      const done = await terminal.waitFor('EXIT=');
      expect(done).toContain('EXIT=0');
      expect(done.replace(/\s*\n\s*/g, ' ')).toMatch(/mcpx: started a daemon \(pid \d+\) for \S*alpha\/mcpx\.json/);
    } finally {
      terminal.close();
    }
    // A second call finds it running and says nothing of it.
    const warm = await mcpx(['call', 'fx.no_ask', 'text=hi', '--config', configs[0]!]);
    expect(warm.code, warm.stderr).toBe(0);
    expect(warm.stderr).not.toContain('started a daemon');
  }, 60_000);

  it('status --all lists one daemon per config, and stop --all stops them all', async () => {
    const beta = await mcpx(['call', 'fx.no_ask', 'text=hi', '--config', configs[1]!]);
    expect(beta.code, beta.stderr).toBe(0);

    const status = await mcpx(['daemon', 'status', '--all']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`config ${configs[0]}`);
    expect(status.stdout).toContain(`config ${configs[1]}`);
    const json = JSON.parse((await mcpx(['daemon', 'status', '--all', '--json'])).stdout) as {
      daemons: Array<{ pid: number; configPath: string }>;
    };
    expect(json.daemons.map((daemon) => daemon.configPath).sort()).toEqual([...configs].sort());

    const stopped = await mcpx(['daemon', 'stop', '--all']);
    expect(stopped.code, stopped.stderr).toBe(0);
    for (const daemon of json.daemons) expect(stopped.stdout).toContain(`stopped (pid ${daemon.pid})`);
    for (const daemon of json.daemons) expect(() => process.kill(daemon.pid, 0)).toThrow();

    const none = await mcpx(['daemon', 'status', '--all']);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('mcpx daemon: none running');
  }, 60_000);
});
