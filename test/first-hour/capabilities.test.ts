/**
 * Every connection the CLI opens declares what mcpx can deliver (form always, url because whoever answers opens
 * the page on their side), so a listing, `mcpx gen` and the daemon see the same tools: server-everything lists its
 * two asking tools only to a client that declares elicitation (url mode for `trigger-url-elicitation`).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-run.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

const dir = mkdtempSync(join(tmpdir(), 'mcpx-capabilities-'));
writeFileSync(
  join(dir, 'mcpx.json'),
  JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }),
);
const baseEnv = {
  PATH: process.env.PATH ?? '',
  MCPX_STATE_DIR: join(dir, 'state'),
  MCPX_CONFIG_DIR: join(dir, 'config'),
  HOME: dir,
};

const run = (args: string[], extra: Record<string, string> = {}): Promise<CliRun> =>
  runCli(args, { cwd: dir, env: { ...baseEnv, ...extra }, timeoutMs: 60_000 });

const toolNames = (listed: CliRun): string[] =>
  (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name).sort();

afterAll(async () => {
  await run(['daemon', 'stop']);
});

describe('the tools that ask are listed on every surface', () => {
  it('mcpx list everything, inline, shows both trigger tools (15 tools), as the daemon does', async () => {
    const inline = await run(['list', 'everything', '--json'], { MCPX_DAEMON: 'inline' });
    expect(inline.code, inline.stderr).toBe(0);
    const names = toolNames(inline);
    expect(names).toContain('trigger-elicitation-request');
    expect(names).toContain('trigger-url-elicitation');
    expect(names).toHaveLength(15);

    const started = await run(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    const warm = await run(['list', 'everything', '--json']);
    expect(warm.code, warm.stderr).toBe(0);
    expect(toolNames(warm)).toEqual(names);
    await run(['daemon', 'stop']);
  });

  it('mcpx gen --check gives the same verdict with and without a daemon', async () => {
    const out = join(dir, 'gen');
    const written = await run(['gen', '--out', out, '--no-daemon']);
    expect(written.code, written.stderr).toBe(0);

    const cold = await run(['gen', '--out', out, '--check', '--no-daemon']);
    expect(cold.code, cold.stdout + cold.stderr).toBe(0);

    const started = await run(['daemon', 'start']);
    expect(started.code, started.stderr).toBe(0);
    const warm = await run(['gen', '--out', out, '--check']);
    expect(warm.code, warm.stdout + warm.stderr).toBe(0);
    await run(['daemon', 'stop']);
  });
});
