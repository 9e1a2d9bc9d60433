/**
 * "Hours later", and a default deadline of 2 minutes: the exit-75 message says when the question expires (text and
 * --json), and a config sets a server's deadline (`mcpServers.<name>.elicitTtl`), over the `elicit.ttl` default,
 * with or without a daemon.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, runCli, type CliRun } from '../helpers/cli-run.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

const HOUR = 3_600_000;

const dirs: Array<{ dir: string; env: Record<string, string> }> = [];

/** A config dir: `slow` keeps its questions for an hour, `quick` has the config's default (5 minutes). */
function setup(daemon: 'inline' | ''): (args: string[]) => Promise<CliRun> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-deadline-'));
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({
      mcpServers: {
        slow: { ...stdioFixture('dual-era'), era: 'modern', elicitTtl: '1h' },
        quick: { ...stdioFixture('dual-era'), era: 'modern' },
      },
      elicit: { ttl: '5m' },
    }),
  );
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    MCPX_STATE_DIR: join(dir, 'state'),
    MCPX_CONFIG_DIR: join(dir, 'config'),
    MCPX_DAEMON: daemon,
  };
  dirs.push({ dir, env });
  return (args) => runCli(args, { cwd: dir, env, timeoutMs: 60_000 });
}

afterAll(async () => {
  for (const { dir, env } of dirs)
    await new Promise((done) => execFile(process.execPath, [CLI, 'daemon', 'stop'], { cwd: dir, env }, done));
});

/** The deadline the --json exit-75 output gives the call's question, as ms from now. */
async function deadlineOf(run: (args: string[]) => Promise<CliRun>, call: string): Promise<number> {
  const before = Date.now();
  const called = await run(['call', call, '--json']);
  expect(called.code, called.stderr).toBe(75);
  const [question] = (JSON.parse(called.stdout) as { inputRequired: { questions: Array<{ expiresAt: string | number }> } })
    .inputRequired.questions;
  expect(question?.expiresAt).toBeDefined();
  return new Date(question!.expiresAt).getTime() - before;
}

describe.each([
  ['without a daemon', 'inline' as const],
  ['through the daemon', '' as const],
])('the question deadline, %s', (_name, daemon) => {
  const run = setup(daemon);

  it('is said where the question is shown', async () => {
    const called = await run(['call', 'quick.ask_form']);
    expect(called.code, called.stderr).toBe(75);
    expect(called.stdout).toMatch(/expires\s+\S+ \((4m5\ds|5m0s) from now\)/);
  });

  it("is the server's elicitTtl where the config sets one, else the config's elicit.ttl", async () => {
    const slow = await deadlineOf(run, 'slow.ask_form');
    expect(slow).toBeGreaterThan(HOUR - 10 * 60_000);
    expect(slow).toBeLessThanOrEqual(HOUR + 60_000);
    const quick = await deadlineOf(run, 'quick.ask_form');
    expect(quick).toBeGreaterThan(4 * 60_000);
    expect(quick).toBeLessThanOrEqual(5 * 60_000 + 60_000);
  });

  it('shows the hour in the text too', async () => {
    const called = await run(['call', 'slow.ask_form']);
    expect(called.code, called.stderr).toBe(75);
    expect(called.stdout).toMatch(/expires\s+\S+ \((59m5\ds|1h0m0s) from now\)/);
  });
});

it('a server elicitTtl that is not a duration is named with what is expected', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-deadline-bad-'));
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({ mcpServers: { slow: { ...stdioFixture('dual-era'), elicitTtl: 'soon' } } }),
  );
  const listed = await new Promise<CliRun>((done) =>
    execFile(
      process.execPath,
      [CLI, 'call', 'slow.ask_form'],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: join(dir, 'state'), MCPX_DAEMON: 'inline' } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
  expect(listed.code).not.toBe(0);
  expect(listed.stderr).toContain('elicitTtl');
  expect(listed.stderr).toMatch(/"120s"|duration/);
});
