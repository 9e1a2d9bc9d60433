/**
 * A tool that requires MCP task mode (server-everything's `simulate-research-query`, `execution.taskSupport:
 * 'required'`) cannot be called by mcpx yet: the listing marks it, and a call fails before anything is sent with
 * TASKS_NOT_SUPPORTED instead of the server's raw -32601.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-run.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

const dir = mkdtempSync(join(tmpdir(), 'mcpx-task-tools-'));
writeFileSync(
  join(dir, 'mcpx.json'),
  JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }),
);
const env = {
  PATH: process.env.PATH ?? '',
  MCPX_STATE_DIR: join(dir, 'state'),
  MCPX_CONFIG_DIR: join(dir, 'config'),
  MCPX_DAEMON: 'inline',
  HOME: dir,
};

const run = (args: string[], extra: Record<string, string> = {}): Promise<CliRun> =>
  runCli(args, { cwd: dir, env: { ...env, ...extra }, timeoutMs: 60_000 });

afterAll(async () => {
  await run(['daemon', 'stop'], { MCPX_DAEMON: '' });
});

describe('a tool that requires MCP task mode', () => {
  it('is marked in mcpx list, and only that tool', async () => {
    const listed = await run(['list', 'everything']);
    expect(listed.code, listed.stderr).toBe(0);
    const marked = listed.stdout.split('\n').filter((line) => line.includes('needs MCP tasks'));
    expect(marked).toHaveLength(1);
    expect(marked[0]).toContain('simulate-research-query');
    expect(marked[0]).toContain('not supported yet');
  });

  it('fails at once with TASKS_NOT_SUPPORTED, in text and in --json', async () => {
    const called = await run(['call', 'everything.simulate-research-query', 'topic=tides']);
    expect(called.code).not.toBe(0);
    expect(called.stderr).toContain('requires MCP task mode');
    expect(called.stderr).toContain('not support');
    expect(called.stderr).not.toContain('-32601');

    const json = await run(['call', 'everything.simulate-research-query', 'topic=tides', '--json']);
    expect(json.code).not.toBe(0);
    const error = JSON.parse(json.stdout || json.stderr) as { error?: { code?: string }; code?: string };
    expect(error.error?.code ?? error.code).toBe('TASKS_NOT_SUPPORTED');
  });

  it('fails the same way through a daemon, which sends nothing either', async () => {
    const started = await run(['daemon', 'start'], { MCPX_DAEMON: '' });
    expect(started.code, started.stderr).toBe(0);
    const called = await run(['call', 'everything.simulate-research-query', 'topic=tides', '--json'], { MCPX_DAEMON: '' });
    expect(called.code).not.toBe(0);
    expect((JSON.parse(called.stdout) as { error: { code: string } }).error.code).toBe('TASKS_NOT_SUPPORTED');
  });

  it('leaves the other tools callable', async () => {
    const called = await run(['call', 'everything.echo', 'message=still here']);
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toContain('still here');
  });
});
