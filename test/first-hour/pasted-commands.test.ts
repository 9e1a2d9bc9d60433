/**
 * Issue #35 item 5: a command mcpx prints works when pasted in another shell and directory by the same user. A call
 * made with `--config x.json` from directory A prints its answer command; that line, run verbatim by `sh -c` from
 * directory B with a clean environment (no MCPX_SESSION_ID), answers the question; `mcpx elicit list` shows which
 * session a question is in, and a refusal names the question's session and the command that acts in it.
 */
import { execFile } from 'node:child_process';
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

/** A shell command line, as a user pastes it (sh finds `mcpx` on PATH). */
function sh(command: string, cwd: string, extra: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((done) => {
    execFile('sh', ['-c', command], { cwd, env: { ...env, ...extra }, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const mcpx = (args: string[], cwd: string, extra: Record<string, string> = {}): Promise<CliRun> =>
  runCli(args, { cwd, env: { ...env, ...extra }, timeoutMs: 60_000 });

/** The `answer` row's first command, exactly as printed. */
function printedAnswer(text: string): string {
  const line = /^ {2}answer {3}(.+)$/m.exec(text)?.[1];
  if (!line) throw new Error(`no answer row in:\n${text}`);
  return line;
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcpx-pasted-'));
  dirA = join(home, 'a');
  dirB = join(home, 'b', 'deeper');
  mkdirSync(dirA);
  mkdirSync(dirB, { recursive: true });
  writeFileSync(join(dirA, 'x.json'), JSON.stringify({ mcpServers: { fx: stdioFixture('legacy-v1') } }));
  // `mcpx` on PATH, as an installed one would be.
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

describe('printed commands, pasted elsewhere', () => {
  it('the answer command printed after `call --config x.json` works from another directory and a clean shell', async () => {
    const called = await mcpx(['call', 'fx.ask_confirm', '--config', 'x.json', '--elicit=return'], dirA);
    expect(called.code, called.stderr).toBe(75);
    const command = printedAnswer(called.stderr + called.stdout);
    expect(command).toContain(join(dirA, 'x.json'));

    const id = /elc-[0-9a-f]{16}/.exec(command)![0];
    // The session is visible where questions are listed, with the command that acts in it.
    const listed = await mcpx(['elicit', 'list', '--config', 'x.json'], dirA);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/session +fp-[0-9a-f]{16}/);
    expect(listed.stdout).toContain(`MCPX_SESSION_ID=`);

    // From elsewhere, the bare command is refused, naming the question's session and the exact command.
    const bare = await sh(`mcpx elicit answer --config ${join(dirA, 'x.json')} ${id} confirm=true`, dirB);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('ELICITATION_FORBIDDEN');
    expect(bare.stderr).toMatch(/session fp-[0-9a-f]{16}/);
    expect(bare.stderr).toMatch(/MCPX_SESSION_ID=fp-[0-9a-f]{16} mcpx elicit answer/);

    const pasted = await sh(command, dirB);
    expect(pasted.code, pasted.stderr + pasted.stdout).toBe(0);
  });

  it('the printed `task result` command works from another directory and a clean shell', async () => {
    const called = await mcpx(['call', 'fx.ask_confirm', '--config', 'x.json', '--elicit=return'], dirA);
    expect(called.code, called.stderr).toBe(75);
    const printed = called.stderr + called.stdout;
    const collect = /collect its result with: (.+)$/m.exec(printed)?.[1];
    expect(collect, printed).toBeDefined();
    expect((await sh(printedAnswer(printed), dirB)).code).toBe(0);

    const result = await sh(collect!, dirB);
    expect(result.code, result.stderr + result.stdout).toBe(0);
  });
});
