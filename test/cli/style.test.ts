import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colorEnabled, prettyJson, styleFor } from '../../src/surfaces/cli/style.js';

const tty = Object.assign(new PassThrough(), { isTTY: true });
const pipe = new PassThrough();

describe('colorEnabled', () => {
  it('colours a terminal and not a pipe', () => {
    expect(colorEnabled(tty, {})).toBe(true);
    expect(colorEnabled(pipe, {})).toBe(false);
  });

  it('lets NO_COLOR (not empty) win over FORCE_COLOR, and FORCE_COLOR colour a pipe', () => {
    expect(colorEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled(tty, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    expect(colorEnabled(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(colorEnabled(tty, { TERM: 'dumb' })).toBe(false);
  });
});

describe('prettyJson', () => {
  it('indents, colours keys, strings, numbers and literals, and strips what JSON leaves unescaped', () => {
    const shown = prettyJson({ a: 'x\u009b31m\u202e', n: -1.5, ok: true, none: null }, styleFor(tty, {}));
    expect(shown).toBe(
      [
        '{',
        '  \u001b[36m"a"\u001b[39m: \u001b[32m"x"\u001b[39m,',
        '  \u001b[36m"n"\u001b[39m: \u001b[33m-1.5\u001b[39m,',
        '  \u001b[36m"ok"\u001b[39m: \u001b[35mtrue\u001b[39m,',
        '  \u001b[36m"none"\u001b[39m: \u001b[35mnull\u001b[39m',
        '}',
      ].join('\n'),
    );
    expect(prettyJson({ a: 1 }, styleFor(pipe, {}))).toBe('{\n  "a": 1\n}');
  });
});
