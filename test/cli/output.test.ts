import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configCandidates } from '../../src/config/load.js';
import { renderList } from '../../src/surfaces/cli/commands/elicit.js';
import { chainOf, formatEvent } from '../../src/surfaces/cli/commands/log.js';
import { findConfigPath } from '../../src/config/find.js';
import type { ShownQuestion as Elicitation } from '../../src/surfaces/backend/backend.js';
import { printResult } from '../../src/surfaces/cli/print-result.js';
import { captureIO, runCli } from './helpers/run-cli.js';

const capture = (isTTY: boolean) => captureIO({ isTTY });

describe('printResult', () => {
  it("prints a result's text, describes binary content, and exits 0", () => {
    const c = capture(false);
    const code = printResult(
      {
        content: [
          { type: 'text', text: 'done' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          { type: 'resource_link', uri: 'file:///x' },
        ],
      },
      c.io,
      false,
    );
    expect(code).toBe(0);
    expect(c.out()).toBe('done\n[image image/png, 3 bytes]\n[link file:///x]\n');
  });

  it('writes a tool error to stderr and exits 1', () => {
    const c = capture(false);
    expect(printResult({ isError: true, content: [{ type: 'text', text: 'no such repo' }] }, c.io, false)).toBe(1);
    expect(c.err()).toBe('no such repo\n');
    expect(c.out()).toBe('');
  });

  it('sanitises server text on a terminal and leaves it alone in a pipe', () => {
    const result = { content: [{ type: 'text', text: 'a\u001b]0;title\u0007b' }] };
    const tty = capture(true);
    printResult(result, tty.io, false);
    expect(tty.out()).toBe('ab\n');
    const pipe = capture(false);
    printResult(result, pipe.io, false);
    expect(pipe.out()).toBe('a\u001b]0;title\u0007b\n');
  });

  it('prints structured content when there is no content, and the whole result with --json', () => {
    const c = capture(false);
    printResult({ content: [], structuredContent: { n: 1 } }, c.io, false);
    expect(JSON.parse(c.out())).toEqual({ n: 1 });
    const j = capture(false);
    printResult({ content: [{ type: 'text', text: 'x' }] }, j.io, true);
    expect(JSON.parse(j.out())).toEqual({ content: [{ type: 'text', text: 'x' }] });
  });
});

describe('renderList', () => {
  const base: Elicitation = {
    id: 'elc-0000000000000001',
    server: 'gh',
    tool: 'create',
    mode: 'form',
    message: 'Which repo?\u001b[31m',
    expiresAt: 1_000_000 + 95_000,
    trace: 'cal-0000000000000001',
    session: 's',
    state: 'pending',
    era: 'legacy',
    timeLeftMs: 95_000,
    createdAt: 1_000_000,
  };

  it('aligns one line per question with its time left, and marks ambiguous ones', () => {
    const text = renderList(
      [base, { ...base, id: 'elc-0000000000000002', mode: 'url', ambiguous: true, state: 'expired' }],
      1_000_000,
    );
    expect(text).toBe(
      [
        'ID                    CALL       MODE  LEFT     ASKS',
        'elc-0000000000000001  gh.create  form  1m35s    Which repo?',
        'elc-0000000000000002  gh.create  url   expired  Which repo? (ambiguous)',
        '',
      ].join('\n'),
    );
  });

  it('says so when nothing waits', () => {
    expect(renderList([], 0)).toBe('No questions are waiting.\n');
  });
});

describe('log formatting', () => {
  const events = [
    { kind: 'elicit.open' as const, at: 1, elicit: 'elc-a', trace: 'cal-1', pid: 10, server: 's', tool: 't' },
    {
      kind: 'elicit.answered' as const,
      at: 2,
      elicit: 'elc-a',
      action: 'accept' as const,
      by: 'cli' as const,
      pid: 11,
      answeredAfterMs: 1,
    },
    { kind: 'elicit.resumed' as const, at: 3, elicit: 'elc-a', trace: 'cal-2', parent: 'cal-1', pid: 10 },
    { kind: 'elicit.open' as const, at: 4, elicit: 'elc-b', trace: 'cal-9', pid: 10 },
  ];

  it('walks a chain from either end and leaves out what is not linked', () => {
    expect(chainOf(events, 'cal-2').map((e) => e.at)).toEqual([1, 2, 3]);
    expect(chainOf(events, 'cal-1').map((e) => e.at)).toEqual([1, 2, 3]);
    expect(chainOf(events, 'elc-b').map((e) => e.at)).toEqual([4]);
  });

  it('prints an event as key=value fields', () => {
    expect(formatEvent(events[2]!)).toBe(
      '1970-01-01T00:00:00.003Z elicit.resumed   trace=cal-2 parent=cal-1 elicit=elc-a pid=10\n',
    );
  });
});

describe('findConfigPath', () => {
  it('finds the same file the config loader would, in the same order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-cfg-'));
    const env = { MCPX_CONFIG_DIR: join(dir, 'user') };
    mkdirSync(env.MCPX_CONFIG_DIR);
    const expected = () => configCandidates(dir, env).find((p) => existsSync(p));
    expect(findConfigPath(undefined, dir, env)).toBe(expected());
    writeFileSync(join(env.MCPX_CONFIG_DIR, 'mcpx.json'), '{}');
    expect(findConfigPath(undefined, dir, env)).toBe(expected());
    writeFileSync(join(dir, '.mcp.json'), '{}');
    expect(findConfigPath(undefined, dir, env)).toBe(expected());
    writeFileSync(join(dir, 'mcpx.json'), '{}');
    expect(findConfigPath(undefined, dir, env)).toBe(join(dir, 'mcpx.json'));
    expect(findConfigPath(undefined, dir, { ...env, MCPX_CONFIG: '.mcp.json' })).toBe(
      configCandidates(dir, { ...env, MCPX_CONFIG: '.mcp.json' })[0],
    );
  });

  it('refuses a --config file that does not exist', () => {
    expect(() => findConfigPath('nope.json', tmpdir(), {})).toThrow(/does not exist/);
  });
});

describe('mcpx call usage', () => {
  it('refuses --elicit=prompt without a terminal, and a malformed target', async () => {
    const prompt = await runCli(['call', 'a.b', '--elicit=prompt'], { isTTY: false });
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toContain('--elicit=prompt needs a terminal');
    const target = await runCli(['call', 'nodot']);
    expect(target.code).toBe(2);
    expect(target.stderr).toContain('expected server.tool');
  });
});
