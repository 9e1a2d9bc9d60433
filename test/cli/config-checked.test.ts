/**
 * A cold `mcpx call` remembers that its config passed the check it makes before starting a daemon, and checks again
 * whenever the file's text or a variable it names changes: a config broken after a good call is still reported
 * before anything starts. On the built CLI, with the dual-era fixture.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configCheckedBefore, rememberConfigChecked } from '../../src/surfaces/cli/config-checked.js';
import { runCli } from '../helpers/cli-run.js';
import { FIXTURE_PATHS } from '../helpers/fixture-servers.js';

const dirs: Array<{ home: string; env: Record<string, string> }> = [];
afterEach(async () => {
  for (const { home, env } of dirs.splice(0)) await runCli(['daemon', 'stop'], { cwd: home, env, timeoutMs: 30_000 });
});

function project(): { home: string; config: string; env: Record<string, string> } {
  const home = mkdtempSync(join(tmpdir(), 'mcpx-config-checked-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    MCPX_CONFIG_DIR: join(home, 'config'),
    MCPX_STATE_DIR: join(home, 'state'),
  };
  dirs.push({ home, env });
  return { home, config: join(home, 'mcpx.json'), env };
}

describe('the remembered config check', () => {
  it('holds while the text and the variables it names are the same, and not a moment after', () => {
    const { home, config, env } = project();
    writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: 'node', env: { TOKEN: '${TOKEN}' } } } }));
    expect(configCheckedBefore(config, env, home)).toBe(false);
    rememberConfigChecked(config, env, home);
    expect(configCheckedBefore(config, env, home)).toBe(true);
    expect(configCheckedBefore(config, { ...env, TOKEN: 'other' }, home)).toBe(false);
    expect(configCheckedBefore(config, env, join(home, 'elsewhere'))).toBe(false);
    writeFileSync(config, JSON.stringify({ mcpServers: { fx: { command: 'node', env: { TOKEN: '${TOKEN}' } } } }) + ' ');
    expect(configCheckedBefore(config, env, home)).toBe(false);
  });

  it('a config broken after a good cold call: the next cold call reports it and starts nothing', async () => {
    const { home, config, env } = project();
    const fx = { command: process.execPath, args: [FIXTURE_PATHS['dual-era'], '--stdio'] };
    writeFileSync(config, JSON.stringify({ mcpServers: { fx } }));
    const good = await runCli(['call', 'fx.no_ask', 'text=hi'], { cwd: home, env, timeoutMs: 60_000 });
    expect(good.code, good.stderr).toBe(0);
    expect((await runCli(['daemon', 'stop'], { cwd: home, env, timeoutMs: 30_000 })).code).toBe(0);

    writeFileSync(config, JSON.stringify({ mcpServers: { fx: { ...fx, timeoutMs: '5s' } } }));
    const broken = await runCli(['call', 'fx.no_ask', 'text=hi'], { cwd: home, env, timeoutMs: 30_000 });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`invalid config in ${config}`);
    const state = env.MCPX_STATE_DIR!;
    const daemonFiles = existsSync(state) ? readdirSync(state).filter((f) => /^daemon-.*\.(json|sock)$/.test(f)) : [];
    expect(daemonFiles).toEqual([]);
  }, 90_000);
});
