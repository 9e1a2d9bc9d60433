import { describe, expect, it } from 'vitest';
import { describeInputRequired, formatDuration, respondWith, sanitize } from '../../src/tasks/describe.js';

const form = {
  id: 'elc-93e18b28a5a3c1f5',
  mode: 'form' as const,
  message: 'Which repository should this go in?',
  requestedSchema: { type: 'object' as const, properties: { repo: { type: 'string' as const, description: 'owner/name' }, n: { type: 'integer' as const, minimum: 2 } }, required: ['repo', 'n'] },
  expiresAt: Date.UTC(2026, 8, 30, 22, 31, 37),
};

describe('describeInputRequired', () => {
  it('says what is asked, the schema, the deadline with time left, and the exact commands (§5.1)', () => {
    const text = describeInputRequired({ server: 'ask', tool: 'need_repo', task: 'tsk-06654ccc9f064a5c', questions: [form], now: form.expiresAt - 120_000 });
    expect(text).toBe(
      [
        'mcpx: ask.need_repo is waiting for input and nothing here can answer it.',
        '',
        '  asks     Which repository should this go in?',
        `  schema   ${JSON.stringify(form.requestedSchema)}`,
        '  expires  2026-09-30T22:31:37.000Z (2m0s from now)',
        `  answer   mcpx elicit answer elc-93e18b28a5a3c1f5 '{"repo":"...","n":2}'`,
        '           mcpx elicit decline elc-93e18b28a5a3c1f5 | mcpx elicit cancel elc-93e18b28a5a3c1f5',
        '',
        'The call keeps running until it is answered or expires; collect its result with: mcpx task result tsk-06654ccc9f064a5c',
        '',
      ].join('\n'),
    );
  });

  it('says an inline call cannot outlive the command, and marks an ambiguous question', () => {
    const text = describeInputRequired({ server: 's', tool: 't', questions: [{ ...form, ambiguous: true }], now: form.expiresAt - 5_000, inline: true });
    expect(text).toContain('cannot outlive this command');
    expect(text).toContain('(ambiguous)');
    expect(text).not.toContain('mcpx task result');
  });

  it('strips escape sequences from server text', () => {
    const text = describeInputRequired({ server: 's', tool: 't', questions: [{ ...form, message: 'hi \u001b[31mred\u001b[0m\u0007 there' }], now: 0 });
    expect(text).toContain('asks     hi red there');
    expect(text).not.toContain('\u001b');
  });
});

describe('respondWith', () => {
  it('builds example content from defaults, enums, minimums and types', () => {
    const command = respondWith({
      id: 'elc-0000000000000000',
      mode: 'form',
      requestedSchema: { type: 'object', properties: { a: { type: 'string', enum: ['x', 'y'] }, b: { type: 'boolean' }, c: { type: 'number', default: 7 }, d: { type: 'string' } } },
    });
    expect(command).toBe(`mcpx elicit answer elc-0000000000000000 '{"a":"x","b":true,"c":7,"d":"..."}'`);
  });

  it('quotes a single quote for the shell, and needs no content in url mode', () => {
    expect(respondWith({ id: 'elc-0000000000000000', mode: 'form', requestedSchema: { type: 'object', properties: { q: { type: 'string', default: "it's" } } } })).toBe(
      `mcpx elicit answer elc-0000000000000000 '{"q":"it'\\''s"}'`,
    );
    expect(respondWith({ id: 'elc-0000000000000000', mode: 'url' })).toBe('mcpx elicit answer elc-0000000000000000');
  });
});

describe('formatDuration', () => {
  it('prints durations the way the shipped message did', () => {
    expect(formatDuration(45_000)).toBe('45s');
    expect(formatDuration(120_000)).toBe('2m0s');
    expect(formatDuration(3_723_000)).toBe('1h2m3s');
    expect(formatDuration(-5)).toBe('0s');
  });
});

describe('sanitize', () => {
  it('keeps newlines and tabs, drops other control characters and OSC sequences', () => {
    expect(sanitize('a\tb\nc\u0000d\u009be\u001b]0;title\u0007f')).toBe('a\tb\ncdef');
  });
});
