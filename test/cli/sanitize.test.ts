import { describe, expect, it } from 'vitest';
import { sanitize, sanitizeLine } from '../../src/surfaces/cli/sanitize.js';

describe('sanitize', () => {
  it('removes CSI sequences (colours, cursor moves, screen clears)', () => {
    expect(sanitize('\u001b[31mred\u001b[0m \u001b[2J\u001b[1;1Hmoved')).toBe('red moved');
  });

  it('removes OSC sequences ended by BEL or ST, and unterminated ones', () => {
    expect(sanitize('a\u001b]0;title\u0007b')).toBe('ab');
    expect(sanitize('a\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\b')).toBe('alinkb');
    expect(sanitize('a\u001b]52;c;ZXZpbA==')).toBe('a');
  });

  it('removes 8-bit C1 forms and DCS strings', () => {
    expect(sanitize('x\u009b31my')).toBe('xy');
    expect(sanitize('x\u009d0;t\u009cy')).toBe('xy');
    expect(sanitize('x\u001bPq#0;2;0;0;0\u001b\\y')).toBe('xy');
  });

  it('strips other control characters and bidi overrides but keeps newlines and text', () => {
    expect(sanitize('be\u0007ll\u0000 back\bspace \u202eevil\u202c')).toBe('bell backspace evil');
    expect(sanitize('line one\r\nline two\rline three')).toBe('line one\nline two\nline three');
    expect(sanitize('tab\there')).toBe('tab  here');
  });

  it('keeps newlines sensibly: trailing spaces trimmed, runs of blank lines collapsed', () => {
    expect(sanitize('\n\nfirst   \n\n\n\n\nsecond\n\n')).toBe('first\n\nsecond');
  });

  it('flattens to one line when asked', () => {
    expect(sanitizeLine('owner/\nname\u001b[5m  ')).toBe('owner/ name');
  });

  it('keeps non-ASCII text', () => {
    expect(sanitize('Größe — 日本語 ✓')).toBe('Größe — 日本語 ✓');
  });

  it('cuts very long text', () => {
    expect(sanitize('x'.repeat(50), { maxLength: 10 })).toBe(`${'x'.repeat(9)}…`);
  });
});
