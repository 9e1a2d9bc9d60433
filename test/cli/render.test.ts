import { describe, expect, it } from 'vitest';
import { duration, exampleContent, localIso, renderInputRequired, shellQuote } from '../../src/surfaces/cli/render.js';

const now = Date.parse('2026-09-30T22:29:37Z');

describe('renderInputRequired', () => {
  it('prints the §5.1 message as shipped', () => {
    const text = renderInputRequired({
      server: 'ask',
      tool: 'need_repo',
      task: 'tsk-06654ccc9f064a5c',
      now,
      questions: [
        {
          id: 'elc-93e18b28a5a3c1f5',
          server: 'ask',
          tool: 'need_repo',
          mode: 'form',
          message: 'Which repository should this go in?',
          requestedSchema: {
            type: 'object',
            properties: { repo: { type: 'string', description: 'owner/name' } },
            required: ['repo'],
          },
          expiresAt: now + 120_000,
        },
      ],
    });
    expect(text).toBe(
      [
        'mcpx: ask.need_repo is waiting for input and nothing here can answer it.',
        '',
        '  asks     Which repository should this go in?',
        '  schema   {"properties":{"repo":{"description":"owner/name","type":"string"}},"required":["repo"],"type":"object"}',
        `  expires  ${localIso(now + 120_000)} (2m0s from now)`,
        `  answer   mcpx elicit answer elc-93e18b28a5a3c1f5 '{"repo":"..."}'`,
        '           mcpx elicit decline elc-93e18b28a5a3c1f5 | mcpx elicit cancel elc-93e18b28a5a3c1f5',
        '',
        'The call keeps running until it is answered or expires; collect its result with: mcpx task result tsk-06654ccc9f064a5c',
        '',
      ].join('\n'),
    );
  });

  it('shows a url question with its domain and an answer without content', () => {
    const text = renderInputRequired({
      server: 's',
      tool: 't',
      task: 'tsk-0000000000000001',
      now,
      questions: [
        {
          id: 'elc-0000000000000001',
          server: 's',
          tool: 't',
          mode: 'url',
          message: 'Connect',
          url: 'https://auth.example.com/x',
          expiresAt: now + 5_000,
        },
      ],
    });
    expect(text).toContain('  url      https://auth.example.com/x (auth.example.com)\n');
    expect(text).toContain('  answer   mcpx elicit answer elc-0000000000000001\n');
    expect(text).toContain('(5s from now)');
  });

  it('lists every question of a call, marks an ambiguous one, and says when the call cannot outlive the command', () => {
    const q = { server: 's', tool: 't', mode: 'form' as const, message: 'm', expiresAt: now + 1000 };
    const text = renderInputRequired({
      server: 's',
      tool: 't',
      now,
      questions: [
        { ...q, id: 'elc-0000000000000001' },
        { ...q, id: 'elc-0000000000000002', ambiguous: true },
      ],
    });
    expect(text.match(/ {2}asks {5}m/g)).toHaveLength(2);
    expect(text).toContain('ambiguous');
    expect(text).toContain('daemon.inline');
    expect(text).not.toContain('mcpx task result');
  });

  it('sanitises server text, including the multi-line message', () => {
    const text = renderInputRequired({
      server: 'e\u001b[31mvil',
      tool: 't',
      task: 'tsk-0000000000000001',
      now,
      questions: [
        { id: 'elc-0000000000000001', server: 's', tool: 't', mode: 'form', message: 'one\u001b]0;x\u0007\ntwo', expiresAt: now },
      ],
    });
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(text).toContain('mcpx: evil.t is waiting');
    expect(text).toContain('  asks     one\n           two\n');
    expect(text).toContain('(expired)');
  });
});

describe('exampleContent', () => {
  it('fills required fields with a placeholder of the right kind', () => {
    expect(
      exampleContent({
        type: 'object',
        properties: {
          a: { type: 'string' },
          n: { type: 'integer', minimum: 3 },
          b: { type: 'boolean' },
          e: { type: 'string', enum: ['x', 'y'] },
          t: { type: 'string', oneOf: [{ const: 'k', title: 'K' }] },
          m: { type: 'array', items: { type: 'string', enum: ['p', 'q'] } },
          d: { type: 'string', default: 'dflt' },
          opt: { type: 'string' },
        },
        required: ['a', 'n', 'b', 'e', 't', 'm', 'd'],
      }),
    ).toEqual({ a: '...', n: 3, b: true, e: 'x', t: 'k', m: ['p'], d: 'dflt' });
  });
});

describe('shellQuote', () => {
  it('keeps a single quote inside one shell word', () => {
    expect(shellQuote(`{"a":"it's"}`)).toBe(`'{"a":"it'\\''s"}'`);
  });
});

describe('duration', () => {
  it('prints durations as Go does', () => {
    expect(duration(120_000)).toBe('2m0s');
    expect(duration(3_723_000)).toBe('1h2m3s');
    expect(duration(1_400)).toBe('1s');
  });
});
