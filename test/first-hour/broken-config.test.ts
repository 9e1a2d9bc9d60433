/**
 * Issue #35, a call with a broken config, on the built CLI: the config is read and validated before anything
 * starts, so the call exits with the config error and no daemon (its socket, state or log) nor server appears.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-run.js';

let home: string;
let env: Record<string, string>;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcpx-broken-config-'));
  env = { PATH: process.env.PATH ?? '', HOME: home, MCPX_CONFIG_DIR: join(home, 'config'), MCPX_STATE_DIR: join(home, 'state') };
});

/** What the state dir holds: a daemon leaves its socket, state file or log there. */
const daemonFiles = (): string[] =>
  existsSync(env.MCPX_STATE_DIR!) ? readdirSync(env.MCPX_STATE_DIR!).filter((f) => f.startsWith('daemon-')) : [];

describe('mcpx call with a broken config', () => {
  it('a field of the wrong type: the config error, and neither the daemon nor the server starts', async () => {
    // The command itself is fine: a daemon started early would run it (prewarm), and it leaves a mark.
    const mark = join(home, 'server-started');
    const server = { command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(mark)}, '')`] };
    writeFileSync(join(home, 'mcpx.json'), JSON.stringify({ mcpServers: { fx: { ...server, timeoutMs: '5s' } } }));

    const run = await runCli(['call', 'fx.echo', 'text=hi'], { cwd: home, env, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`invalid config in ${join(home, 'mcpx.json')}`);
    expect(run.stderr).toContain('timeoutMs');
    expect(daemonFiles()).toEqual([]);
    expect(existsSync(mark)).toBe(false);
  });

  it('a mistyped "comand": named with its suggestion, and no daemon starts', async () => {
    writeFileSync(join(home, 'mcpx.json'), JSON.stringify({ mcpServers: { fx: { comand: 'node' } } }));

    const run = await runCli(['call', 'fx.echo'], { cwd: home, env, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unknown field "comand": did you mean "command"?');
    expect(daemonFiles()).toEqual([]);
  });

  it('a JSON syntax error: the config error, and no daemon starts', async () => {
    const config = join(home, 'broken.json');
    writeFileSync(config, '{"mcpServers": {"fx": {"command": "node" "args": []}}}');

    const run = await runCli(['call', 'fx.echo', '--config', config], { cwd: home, env, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`config file ${config} is not valid JSON at line 1`);
    expect(daemonFiles()).toEqual([]);
  });
});
