/**
 * Issue #35 item 7 and two frictions, on the built CLI: `mcpx task show` prints text without --json; a script's
 * mistyped tool gets a did-you-mean through `mcpx exec`; mcpx.json is found in a parent directory, and an empty
 * listing says where it looked; a mistyped `"comand"` is named with its suggestion.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-run.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

let home: string;
let project: string;
let env: Record<string, string>;

const mcpx = (args: string[], cwd: string): Promise<CliRun> => runCli(args, { cwd, env, timeoutMs: 60_000 });

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcpx-small-'));
  project = join(home, 'project');
  mkdirSync(join(project, 'src', 'deep'), { recursive: true });
  writeFileSync(join(project, 'mcpx.json'), JSON.stringify({ mcpServers: { fx: stdioFixture('legacy-v1') } }));
  env = { PATH: process.env.PATH ?? '', HOME: home, MCPX_CONFIG_DIR: join(home, 'config'), MCPX_STATE_DIR: join(home, 'state') };
});
afterAll(async () => {
  await mcpx(['daemon', 'stop'], project);
});

describe('the small things of the first hour', () => {
  it('mcpx task show prints text without --json, and JSON with it', async () => {
    const called = await mcpx(['call', 'fx.ask_confirm', '--elicit=return', '--json'], project);
    expect(called.code, called.stderr).toBe(75);
    const task = (JSON.parse(called.stdout) as { inputRequired: { task: string } }).inputRequired.task;

    const shown = await mcpx(['task', 'show', task], project);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.trimStart().startsWith('{')).toBe(false);
    expect(shown.stdout).toContain(`task     ${task}`);
    expect(shown.stdout).toContain('call     fx.ask_confirm');
    expect(shown.stdout).toContain('state    input-required');

    const json = await mcpx(['task', 'show', task, '--json'], project);
    expect((JSON.parse(json.stdout) as { task: { id: string } }).task.id).toBe(task);
  });

  it("a script's mistyped tool name gets a did-you-mean", async () => {
    const run = await mcpx(['exec', 'await tools.fx.no_aks({})'], project);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('fx has no tool named "no_aks"; did you mean no_ask?');
  });

  it('finds mcpx.json in a parent directory, and says where it looked when there is none', async () => {
    const listed = await mcpx(['list'], join(project, 'src', 'deep'));
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^fx\b/m);

    const outside = join(home, 'elsewhere');
    mkdirSync(outside);
    const none = await mcpx(['list'], outside);
    expect(none.stdout).toContain('No servers are configured. Looked in:');
    expect(none.stdout).toContain(`  ${join(outside, 'mcpx.json')}\n`);
    expect(none.stdout).toContain(`  ${join(home, '.mcp.json')}\n`);
  });

  it('names a mistyped "comand" and suggests "command"', async () => {
    const bad = join(home, 'bad.json');
    writeFileSync(bad, JSON.stringify({ mcpServers: { x: { comand: 'node' } } }));
    const run = await mcpx(['list', '--config', bad], home);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('unknown field "comand": did you mean "command"?');
  });
});
