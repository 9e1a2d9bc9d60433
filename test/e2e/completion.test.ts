/**
 * Shell completion with the built CLI: `mcpx completion bash` sourced into a real bash, whose `_mcpx` calls back
 * into `mcpx __complete` for commands, verbs, flags, flag values, and the config's server and tool names. Once as a
 * function call with the COMP_* variables bash would set, and once typed with Tab in an interactive bash (tmux).
 * zsh and fish are not installed here: their scripts are checked for what they must call. What is about the words
 * (zsh, fish, the table against each --help) runs `mcpx` as a function; bash and Tab run the built CLI.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { complete } from '../../src/surfaces/cli/completion/complete.js';
import { captureIO, runCli } from '../cli/helpers/run-cli.js';
import { openTerminal, type Terminal } from '../cli/helpers/tmux.js';
import { stdioFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');

let dir: string;
let env: Record<string, string>;
let terminal: Terminal | undefined;
afterEach(() => terminal?.close());

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsup)`);
  dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-completion-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'mcpx'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} "$@"\n`);
  chmodSync(join(bin, 'mcpx'), 0o755);
  writeFileSync(
    join(dir, 'mcpx.json'),
    // Comments, as VS Code writes .mcp.json: completion reads the config the way the loader does.
    `{\n  // two fixture servers\n  "mcpServers": ${JSON.stringify({ fx: stdioFixture('dual-era'), old: stdioFixture('legacy-v1') })}\n}\n`,
  );
  writeFileSync(join(dir, 'other.json'), JSON.stringify({ mcpServers: { elsewhere: stdioFixture('legacy-v1') } }));
  env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    MCPX_STATE_DIR: join(dir, 'state'),
    MCPX_CONFIG_DIR: join(dir, 'config'),
    HOME: dir,
  };
  // The script the built CLI prints, written once: each completion below then starts one mcpx (`__complete`), not two.
  writeFileSync(bashScript(), execFileSync(process.execPath, [cli, 'completion', 'bash'], { cwd: dir, env, encoding: 'utf8' }));
});

function bashScript(): string {
  return join(dir, 'mcpx-completion.bash');
}

/** `mcpx <words>` as a function (the command table, not the process): stdout, stderr and the exit code. */
function mcpxInProcess(...words: string[]): ReturnType<typeof runCli> {
  return runCli(words, { cwd: dir, env });
}

/** The words bash puts in COMP_WORDS for `line` (its default COMP_WORDBREAKS split at "=" and ":"). */
function bashWords(line: string): string[] {
  const words = line.split(' ').flatMap((w) => w.split(/([=:])/).filter((part) => part !== ''));
  return line.endsWith(' ') ? [...words, ''] : words;
}

/** What bash offers for Tab at the end of `line`: `_mcpx` run with the variables readline sets. */
function completeInBash(line: string): Promise<string[]> {
  const words = bashWords(line);
  const script = [
    `source ${shellQuote(bashScript())}`,
    `COMP_LINE=${shellQuote(line)}`,
    `COMP_POINT=${line.length}`,
    `COMP_WORDS=(${words.map(shellQuote).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_mcpx',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  return new Promise((done, fail) =>
    execFile('bash', ['-c', script], { cwd: dir, env, timeout: 30_000 }, (error, stdout, stderr) =>
      error ? fail(new Error(`${error.message}\n${stderr}`)) : done(stdout.split('\n').filter(Boolean)),
    ),
  );
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

describe('mcpx completion bash', () => {
  it('completes commands, verbs and flags', async () => {
    expect(await completeInBash('mcpx ')).toEqual(expect.arrayContaining(['call', 'list', 'elicit', 'completion', 'help']));
    expect(await completeInBash('mcpx ca')).toEqual(['call']);
    expect(await completeInBash('mcpx elicit ')).toEqual(
      expect.arrayContaining(['answer', 'decline', 'cancel', 'list', 'watch']),
    );
    expect(await completeInBash('mcpx list --')).toEqual(expect.arrayContaining(['--json', '--schema', '--config', '--help']));
    expect(await completeInBash('mcpx completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(await completeInBash('mcpx help li')).toEqual(['list']);
  });

  it('completes flag values, also after "=" where bash splits the word', async () => {
    expect(await completeInBash('mcpx call --elicit ')).toEqual(['prompt', 'return', 'auto', 'decline', 'error']);
    expect(await completeInBash('mcpx call --elicit=re')).toEqual(['return']);
    expect(await completeInBash('mcpx elicit list --state=ex')).toEqual(['expired']);
  });

  it("completes the config's server names, and another config's with --config", async () => {
    expect(await completeInBash('mcpx list ')).toEqual(['fx', 'old']);
    expect(await completeInBash('mcpx call ')).toEqual(['fx.', 'old.']);
    expect(await completeInBash('mcpx serve fx ')).toEqual(['old']);
    expect(await completeInBash('mcpx elicit list --server ')).toEqual(['fx', 'old']);
    expect(await completeInBash('mcpx list --config other.json ')).toEqual(['elsewhere']);
  });

  it("completes a server's tool names after server.", async () => {
    const tools = await completeInBash('mcpx call fx.');
    expect(tools).toEqual(expect.arrayContaining(['fx.no_ask', 'fx.sleep', 'fx.ask_form']));
    expect(await completeInBash('mcpx call old.sl')).toEqual(['old.sleep']);
    expect(await completeInBash('mcpx call nosuch.')).toEqual([]);
  });

  it('completes with Tab in an interactive bash', async () => {
    const shell = [
      'env',
      ...Object.entries({ ...env, PS1: '$ ' }).map(([k, v]) => `${k}=${v}`),
      'bash',
      '--norc',
      '--noprofile',
      '-i',
    ];
    const t = openTerminal(shell, { cwd: dir });
    terminal = t;
    t.type('source <(mcpx completion bash)');
    t.keys('Enter');
    t.type('mcpx ca');
    t.keys('Tab');
    await t.waitFor('$ mcpx call ');
    t.type('old.sl');
    t.keys('Tab');
    await t.waitFor('$ mcpx call old.sleep ');
  });
});

describe('mcpx completion zsh and fish', () => {
  it('prints scripts that ask mcpx __complete for the words', async () => {
    const zsh = (await mcpxInProcess('completion', 'zsh')).stdout;
    expect(zsh).toMatch(/^#compdef mcpx/);
    expect(zsh).toContain('mcpx __complete -- "${(@)words[1,CURRENT]}"');
    expect(zsh).toContain('compdef _mcpx mcpx');
    const fish = (await mcpxInProcess('completion', 'fish')).stdout;
    expect(fish).toContain("complete -c mcpx -f -a '(__mcpx_complete)'");
    expect(fish).toContain('mcpx __complete -- $words');
  });

  it('gives zsh and fish the candidates for the words they pass', async () => {
    const run = async (...words: string[]): Promise<string[]> => (await completeInProcess(...words)).split('\n').filter(Boolean);
    expect(await run('mcpx', 'call', '--elicit=a')).toEqual(['--elicit=auto']);
    expect(await run('mcpx', 'list', '')).toEqual(['fx', 'old']);
  });

  it('refuses an unknown shell with a usage error', async () => {
    const run = await mcpxInProcess('completion', 'powershell');
    const failure = run.code === 0 ? undefined : { status: run.code, stderr: run.stderr };
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toContain('expected one of bash, zsh, fish');
  });
});

async function helpOf(command: string): Promise<string> {
  const run = await mcpxInProcess(command, '--help');
  if (run.code !== 0) throw new Error(`mcpx ${command} --help ended ${run.code}: ${run.stderr}`);
  return run.stdout;
}

/** What `mcpx __complete -- <words>` prints (entry.ts hands it to complete() before the command table). */
async function completeInProcess(...words: string[]): Promise<string> {
  const captured = captureIO({ cwd: dir, env, stdin: '' });
  await complete(['--', ...words], captured.io);
  return captured.out();
}

describe('the completion table', () => {
  it("knows every flag each command's --help names", async () => {
    const { COMPLETION_SPECS, GLOBAL_FLAGS } = await import('../../src/surfaces/cli/completion/spec.js');
    const names = (await completeInProcess('mcpx', '')).split('\n').filter((name) => name && name !== 'help');
    // Every command's --help, read in the commands' order below.
    const helps = await Promise.all(names.map((name) => (COMPLETION_SPECS[name] ? helpOf(name) : '')));
    const missing: string[] = [];
    names.forEach((name, i) => {
      const spec = COMPLETION_SPECS[name];
      if (!spec) {
        missing.push(`${name}: no completion entry`);
        return;
      }
      for (const [, flag] of helps[i]!.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g))
        if (!(flag! in spec.flags) && !(flag! in GLOBAL_FLAGS)) missing.push(`${name} --${flag}`);
    });
    expect(missing).toEqual([]);
  });
});
