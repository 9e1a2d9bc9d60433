/**
 * Issue #35: the commands `mcpx run` and `mcpx elicit watch` print work pasted in another shell and directory, as
 * `mcpx call`'s do (test/first-hour/pasted-commands.test.ts): they carry MCPX_SESSION_ID and the config's absolute
 * path. Each line is run verbatim by `sh -c` from another directory with a clean environment.
 */
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli, type CliRun } from '../helpers/cli-run.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

let home: string;
let dirA: string;
let dirB: string;
let env: Record<string, string>;

function sh(command: string, cwd: string): Promise<CliRun> {
  return new Promise((done) => {
    execFile('sh', ['-c', command], { cwd, env, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const mcpx = (args: string[], cwd: string): Promise<CliRun> => runCli(args, { cwd, env, timeoutMs: 60_000 });

/** The first command of the row labelled `label`, exactly as printed. */
function printedRow(label: string, text: string): string {
  const line = new RegExp(`^ {2}${label} +(.+)$`, 'm').exec(text)?.[1];
  if (!line) throw new Error(`no ${label} row in:\n${text}`);
  return line;
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcpx-pasted-run-'));
  dirA = join(home, 'a');
  dirB = join(home, 'b', 'deeper');
  mkdirSync(dirA);
  mkdirSync(dirB, { recursive: true });
  writeFileSync(join(dirA, 'x.json'), JSON.stringify({ mcpServers: { fx: stdioFixture('legacy-v1') } }));
  writeFileSync(join(dirA, 'job.ts'), "export default await ask('Which repository?');\n");
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'mcpx'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'mcpx'), 0o755);
  env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: home,
    MCPX_CONFIG_DIR: join(home, 'config'),
    MCPX_STATE_DIR: join(home, 'state'),
  };
});
afterAll(async () => {
  await mcpx(['daemon', 'stop', '--config', join(dirA, 'x.json')], dirA);
});

describe('printed commands of run and watch, pasted elsewhere', () => {
  it("mcpx run's stop prints an answer command that works from another directory and a clean shell", async () => {
    const stopped = await mcpx(['run', 'job.ts', '--config', 'x.json'], dirA);
    expect(stopped.code, stopped.stderr).toBe(75);
    const command = printedRow('anywhere', stopped.stdout);
    expect(command).toMatch(/^MCPX_SESSION_ID=fp-[0-9a-f]{16} mcpx elicit answer elc-[0-9a-f]{16} /);
    expect(command).toContain(`--config ${join(dirA, 'x.json')}`);

    const pasted = await sh(command.replace('"..."', '"me/thing"'), dirB);
    expect(pasted.code, pasted.stderr + pasted.stdout).toBe(0);
    expect(pasted.stderr).toContain('accepted');
    const again = await mcpx(['run', 'job.ts', '--config', 'x.json'], dirA);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('me/thing');
  });

  it('mcpx elicit watch shows a new question with commands that work from another directory', async () => {
    const config = join(dirA, 'x.json');
    expect((await mcpx(['daemon', 'start', '--config', 'x.json'], dirA)).code).toBe(0);
    const watcher = spawn(
      process.execPath,
      [CLI, 'elicit', 'watch', '--kinds', 'elicit.open', '--count', '1', '--config', 'x.json'],
      {
        cwd: dirA,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let watched = '';
    let said = '';
    watcher.stdout.on('data', (chunk: Buffer) => (watched += chunk.toString('utf8')));
    const ended = new Promise<number | null>((done) => watcher.once('exit', done));
    await new Promise<void>((ready) =>
      watcher.stderr.on('data', (chunk: Buffer) => {
        said += chunk.toString('utf8');
        if (said.includes('watching for questions')) ready();
      }),
    );

    const called = await mcpx(['call', 'fx.ask_confirm', '--config', 'x.json', '--elicit=return'], dirA);
    expect(called.code, called.stderr).toBe(75);
    expect(await ended).toBe(0);
    const command = printedRow('answer', watched);
    expect(command).toMatch(/^MCPX_SESSION_ID=fp-[0-9a-f]{16} mcpx elicit answer elc-[0-9a-f]{16} /);
    expect(command).toContain(`--config ${config}`);

    const pasted = await sh(command, dirB);
    expect(pasted.code, pasted.stderr + pasted.stdout).toBe(0);
  });
});
