import { describe, expect, it } from 'vitest';
import { describeInputRequired, isoAt, respondWith, stripControls } from '../../src/elicitation/describe.js';

const form = {
  id: 'elc-93e18b28a5a3c1f5',
  mode: 'form' as const,
  message: 'Which repository should this go in?',
  requestedSchema: {
    type: 'object' as const,
    properties: { repo: { type: 'string' as const, description: 'owner/name' }, n: { type: 'integer' as const, minimum: 2 } },
    required: ['repo', 'n'],
  },
  expiresAt: Date.UTC(2026, 8, 30, 22, 31, 37),
};

describe('describeInputRequired', () => {
  it('says what is asked, the schema, the deadline in UTC with time left, and the exact commands (§5.1)', () => {
    const text = describeInputRequired(
      { server: 'ask', tool: 'need_repo', task: 'tsk-06654ccc9f064a5c', questions: [form] },
      { now: form.expiresAt - 120_000 },
    );
    expect(text).toBe(
      [
        'mcpx: ask.need_repo is waiting for input and nothing here can answer it.',
        '',
        '  asks     Which repository should this go in?',
        '  schema   {"properties":{"n":{"minimum":2,"type":"integer"},"repo":{"description":"owner/name","type":"string"}},"required":["repo","n"],"type":"object"}',
        '  expires  2026-09-30T22:31:37Z (2m0s from now)',
        `  answer   mcpx elicit answer elc-93e18b28a5a3c1f5 '{"repo":"...","n":2}'`,
        '           mcpx elicit decline elc-93e18b28a5a3c1f5 | mcpx elicit cancel elc-93e18b28a5a3c1f5',
        '',
        'The call keeps running until it is answered or expires; collect its result with: mcpx task result tsk-06654ccc9f064a5c',
        '',
      ].join('\n'),
    );
  });

  it('prints the deadline in the zone it is given', () => {
    const text = describeInputRequired(
      { server: 's', tool: 't', task: 'tsk-0', questions: [form] },
      { now: 0, utcOffsetMinutes: () => -300 },
    );
    expect(text).toContain('  expires  2026-09-30T17:31:37-05:00 (');
    expect(isoAt(form.expiresAt, 330)).toBe('2026-10-01T04:01:37+05:30');
  });

  it("gives another session's question (a sign-in joined) with --all, and its own session's without", () => {
    const signIn = {
      id: 'elc-4d3a573238a6f955',
      mode: 'url' as const,
      message: 'Sign in',
      url: 'https://auth.example.com/a',
      expiresAt: form.expiresAt,
    };
    const view = { server: 'notes', tool: 'whoami', task: 'tsk-0', questions: [{ ...signIn, session: 'fp-a' }] };
    const elsewhere = describeInputRequired({ ...view, session: 'fp-b' }, { now: 0 });
    expect(elsewhere).toContain('asked by a call in another session');
    expect(elsewhere).toContain('  answer   mcpx elicit answer --all elc-4d3a573238a6f955\n');
    expect(elsewhere).toContain('mcpx elicit decline --all elc-4d3a573238a6f955 | mcpx elicit cancel --all elc-4d3a573238a6f955');
    const own = describeInputRequired({ ...view, session: 'fp-a' }, { now: 0 });
    expect(own).not.toContain('--all');
    expect(own).not.toContain('another session');
  });

  it('says an inline call cannot outlive the command, and marks an ambiguous question', () => {
    const text = describeInputRequired(
      { server: 's', tool: 't', task: 'tsk-0', inline: true, questions: [{ ...form, ambiguous: true }] },
      { now: form.expiresAt - 5_000 },
    );
    expect(text).toContain('cannot outlive this command');
    expect(text).toContain('(ambiguous)');
    expect(text).not.toContain('mcpx task result');
  });

  it('leaves no control character from server text (message, url, field names, server and tool names)', () => {
    const evil = '\u001b]0;title\u0007hi \u001b[31mred\u001b[0m\u0007\u009b2J\u202e there';
    const text = describeInputRequired(
      {
        server: `s${evil}`,
        tool: 't',
        questions: [
          { ...form, message: evil, requestedSchema: { type: 'object', properties: { [`k${evil}`]: { type: 'string' } } } },
          {
            id: 'elc-0000000000000001',
            mode: 'url',
            message: 'open',
            url: `https://example.com/${evil}`,
            expiresAt: form.expiresAt,
          },
        ],
      },
      { now: 0 },
    );
    expect(text).toContain('asks     hi red there');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(stripControls('a\tb\nc\u0000')).toBe('a\tb\nc');
  });
});

describe('respondWith', () => {
  it('builds example content from defaults, choices, minimums and types', () => {
    const command = respondWith({
      id: 'elc-0000000000000000',
      mode: 'form',
      requestedSchema: {
        type: 'object',
        properties: {
          a: { type: 'string', enum: ['x', 'y'] },
          b: { type: 'boolean' },
          c: { type: 'number', default: 7 },
          d: { type: 'string' },
          e: { type: 'string', oneOf: [{ const: 'lo', title: 'Low' }] },
        },
      },
    });
    expect(command).toBe(`mcpx elicit answer elc-0000000000000000 '{"a":"x","b":true,"c":7,"d":"...","e":"lo"}'`);
  });

  it('quotes a single quote for the shell, and needs no content in url mode', () => {
    expect(
      respondWith({
        id: 'elc-0000000000000000',
        mode: 'form',
        requestedSchema: { type: 'object', properties: { q: { type: 'string', default: "it's" } } },
      }),
    ).toBe(`mcpx elicit answer elc-0000000000000000 '{"q":"it'\\''s"}'`);
    expect(respondWith({ id: 'elc-0000000000000000', mode: 'url' })).toBe('mcpx elicit answer elc-0000000000000000');
  });
});
