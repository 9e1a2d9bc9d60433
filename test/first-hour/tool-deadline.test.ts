/**
 * Issue #35 friction, on the built CLI with the dual-era fixture: a config sets one tool's question deadline
 * (`mcpServers.<name>.tools.<tool>.elicitTtl`) over its server's, with or without a daemon, a mistyped tool setting
 * is named with a did-you-mean, another client's `"tools": [...]` list is ignored; and `mcpx task result` off a
 * terminal says on stderr what it waits for and until when.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-run.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

const HOUR = 3_600_000;
const stops: Array<() => Promise<CliRun>> = [];
afterAll(() => Promise.all(stops.map((stop) => stop())));

/** A config dir holding `servers`; its runner, and the daemon (if one starts) stopped after the tests. */
function setup(servers: Record<string, unknown>, daemon: 'inline' | '' = ''): (args: string[]) => Promise<CliRun> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-tool-deadline-'));
  writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: servers }));
  const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: join(dir, 'state'), MCPX_DAEMON: daemon };
  const run = (args: string[]) => runCli(args, { cwd: dir, env, timeoutMs: 60_000 });
  if (!daemon) stops.push(() => run(['daemon', 'stop']));
  return run;
}

interface Asked {
  task?: string;
  questions: Array<{ id: string; expiresAt: string | number }>;
}

async function ask(run: (args: string[]) => Promise<CliRun>, call: string): Promise<Asked & { waitMs: number }> {
  const before = Date.now();
  const called = await run(['call', call, '--json']);
  expect(called.code, called.stderr).toBe(75);
  const asked = (JSON.parse(called.stdout) as { inputRequired: Asked }).inputRequired;
  return { ...asked, waitMs: new Date(asked.questions[0]!.expiresAt).getTime() - before };
}

const deploy = { ...stdioFixture('dual-era'), era: 'modern', elicitTtl: '1h', tools: { ask_form: { elicitTtl: '2h' } } };

describe.each([
  ['without a daemon', 'inline' as const],
  ['through the daemon', '' as const],
])("a tool's own question deadline, %s", (_name, daemon) => {
  const run = setup({ deploy }, daemon);

  it("is the tool's elicitTtl, over its server's; the server's other tools keep the server's", async () => {
    const tool = await ask(run, 'deploy.ask_form');
    expect(tool.waitMs).toBeGreaterThan(2 * HOUR - 10 * 60_000);
    expect(tool.waitMs).toBeLessThanOrEqual(2 * HOUR + 60_000);
    const other = await ask(run, 'deploy.ask_confirm');
    expect(other.waitMs).toBeGreaterThan(HOUR - 10 * 60_000);
    expect(other.waitMs).toBeLessThanOrEqual(HOUR + 60_000);
  });
});

describe('the tools block of a server entry', () => {
  it('names a mistyped tool setting with what is expected and a did-you-mean', async () => {
    const run = setup({ deploy: { ...deploy, tools: { ask_form: { elicitTTL: '2h' } } } }, 'inline');
    const called = await run(['call', 'deploy.ask_form']);
    expect(called.code).not.toBe(0);
    expect(called.code).not.toBe(75);
    expect(called.stderr).toContain('field "tools.ask_form"');
    expect(called.stderr).toContain('"elicitTTL" (did you mean "elicitTtl"?)');

    const bad = setup({ deploy: { ...deploy, tools: { ask_form: { elicitTtl: 'soon' } } } }, 'inline');
    const refused = await bad(['call', 'deploy.ask_form']);
    expect(refused.stderr).toContain('field "tools.ask_form.elicitTtl": expected a positive number of milliseconds');
  });

  it('ignores another client\'s list of tools (GitHub Copilot\'s "tools": ["*"])', async () => {
    const run = setup({ deploy: { ...deploy, tools: ['*'] } }, 'inline');
    const asked = await ask(run, 'deploy.ask_form');
    expect(asked.waitMs).toBeGreaterThan(HOUR - 10 * 60_000);
    expect(asked.waitMs).toBeLessThanOrEqual(HOUR + 60_000);
  });
});

describe('mcpx task result off a terminal', () => {
  it('says on stderr which call it waits for, its question with the deadline and the answer command, and until when', async () => {
    const run = setup({ deploy });
    const asked = await ask(run, 'deploy.ask_form');
    expect(asked.task).toMatch(/^tsk-/);
    const id = asked.questions[0]!.id;

    const waited = await run(['task', 'result', asked.task!, '--timeout', '1']);
    expect(waited.code, waited.stderr).toBe(75);
    expect(waited.stderr).toContain(`mcpx: waiting for ${asked.task} (deploy.ask_form, input-required)`);
    expect(waited.stderr).toMatch(
      new RegExp(`${id} asks ".+": answer by \\d{4}-\\d\\d-\\d\\dT\\S+ \\((?:2h0m0s|1h5\\dm\\d+s) left\\)`),
    );
    expect(waited.stderr).toContain(`mcpx elicit answer ${id}`);
    expect(waited.stderr).toMatch(/at most until \d{4}-\d\d-\d\dT\S+ \(--timeout\)/);
  });
});
