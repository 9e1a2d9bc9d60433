/**
 * Issue #35 friction, on the built CLI with server-everything: Tab offers the `elc-` ids of this session's waiting
 * questions after `elicit answer|decline|cancel`, a tool's argument names after `call server.tool`, and no word that
 * the command's --help (or, before a command, `mcpx --help`) does not show.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPLETION_SPECS } from '../../src/surfaces/cli/completion/spec.js';
import { runCli } from '../helpers/cli-run.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

const dir = mkdtempSync(join(tmpdir(), 'mcpx-completion-'));
const elsewhere = join(dir, 'elsewhere');
mkdirSync(elsewhere);
const config = join(dir, 'mcpx.json');
writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }));
// A question outlives the command that raised it in the daemon (started by that command, stopped after the tests).
const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: join(dir, 'state') };
afterAll(() => runCli(['daemon', 'stop'], { cwd: dir, env, timeoutMs: 30_000 }));

/** What Tab offers after `words` (the last one partial), as zsh and fish ask for it. */
async function tab(words: string[], cwd = dir): Promise<string[]> {
  const run = await runCli(['__complete', '--', 'mcpx', ...words], { cwd, env, timeoutMs: 60_000 });
  return run.stdout.split('\n').filter(Boolean);
}

async function helpOf(command: string[]): Promise<string> {
  return (await runCli([...command, '--help'], { cwd: dir, env, timeoutMs: 30_000 })).stdout;
}

describe('Tab completion offers what the user can type next, and only what --help shows', () => {
  it('offers the ids of the questions waiting in this session after elicit answer, decline and cancel', async () => {
    const asked = await runCli(['call', 'everything.trigger-elicitation-request', '--elicit=return', '--json'], {
      cwd: dir,
      env,
      timeoutMs: 60_000,
    });
    expect(asked.code, asked.stderr).toBe(75);
    const id = (JSON.parse(asked.stdout) as { inputRequired: { questions: Array<{ id: string }> } }).inputRequired.questions[0]!
      .id;
    expect(id).toMatch(/^elc-[0-9a-f]{16}$/);

    expect(await tab(['elicit', 'answer', ''])).toEqual([id]);
    expect(await tab(['elicit', 'decline', 'elc-'])).toEqual([id]);
    expect(await tab(['elicit', 'cancel', id.slice(0, 8)])).toEqual([id]);
    // Once the id is typed, the next word is content, not another id.
    expect(await tab(['elicit', 'answer', id, ''])).toEqual([]);
    // Another directory is another session: its Tab offers none of this session's questions, unless --all.
    expect(await tab(['elicit', 'answer', '--config', config, ''], elsewhere)).toEqual([]);
    expect(await tab(['elicit', 'answer', '--config', config, '--all', ''], elsewhere)).toEqual([id]);
  });

  it("offers a tool's argument names after call server.tool, those not given yet", async () => {
    expect(await tab(['call', 'everything.get-sum', ''])).toEqual(['a=', 'b=']);
    expect(await tab(['call', 'everything.get-sum', 'a=1', ''])).toEqual(['b=']);
    expect(await tab(['call', 'everything.get-sum', '--json', 'b'])).toEqual(['b=']);
    expect(await tab(['call', 'everything.no-such-tool', ''])).toEqual([]);
  });

  it('offers no command, verb, flag or value that --help does not show', async () => {
    const hidden: string[] = [];
    const top = await helpOf([]);
    for (const word of [...(await tab([''])), ...(await tab(['--']))])
      if (!new RegExp(`(?<![\\w-])${word}(?![\\w-])`).test(top)) hidden.push(`mcpx ${word}`);
    // One command's words at a time (a few CLI processes each), the commands side by side.
    const perCommand = await Promise.all(
      Object.entries(COMPLETION_SPECS).map(async ([name, spec]) => {
        const help = await helpOf([name]);
        const offered = [...(await tab([name, '--'])).filter((f) => f !== '--help')];
        if (spec.verbs) offered.push(...(await tab([name, ''])).filter((word) => word !== 'everything'));
        for (const [flag, kind] of Object.entries(spec.flags))
          if (Array.isArray(kind)) offered.push(...(await tab([name, `--${flag}=`])).map((v) => v.slice(flag.length + 3)));
        const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        return offered
          .filter((word) => !new RegExp(`(?<![\\w-])${escape(word)}(?![\\w-])`).test(help))
          .map((word) => `mcpx ${name} ${word}`);
      }),
    );
    hidden.push(...perCommand.flat());
    expect(hidden).toEqual([]);
  });
});
