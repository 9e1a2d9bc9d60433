import { describe, expect, it } from 'vitest';
import { UsageError, elicitModeOf, parseArgs, parseTarget, parseToolArguments } from '../../src/surfaces/cli/args.js';

describe('parseArgs', () => {
  const spec = { booleans: ['json'], strings: ['elicit', 'config'] };

  it('reads boolean flags, --name=value and --name value, and keeps positionals in order', () => {
    expect(parseArgs(['--json', 'a.b', '--elicit=return', 'x=1', '--config', 'c.json'], spec)).toEqual({
      flags: { json: true, elicit: 'return', config: 'c.json' },
      positional: ['a.b', 'x=1'],
    });
  });

  it('treats everything after -- as positional', () => {
    expect(parseArgs(['--', '--json'], spec).positional).toEqual(['--json']);
  });

  it('refuses an unknown flag and a flag without its value', () => {
    expect(() => parseArgs(['--jsn'], spec)).toThrow(/unknown option --jsn/);
    expect(() => parseArgs(['--config'], spec)).toThrow(/--config needs a value/);
    expect(() => parseArgs(['--json=1'], spec)).toThrow(UsageError);
  });
});

describe('parseTarget', () => {
  it('splits server.tool at the first dot', () => {
    expect(parseTarget('github.create_issue')).toEqual({ server: 'github', tool: 'create_issue' });
    expect(parseTarget('fs.read.file')).toEqual({ server: 'fs', tool: 'read.file' });
  });

  it('says what is expected when the target is malformed', () => {
    expect(() => parseTarget('github')).toThrow(/expected server\.tool/);
    expect(() => parseTarget(undefined)).toThrow(/got nothing/);
  });
});

describe('parseToolArguments', () => {
  it('takes one JSON object', () => {
    expect(parseToolArguments(['{"title":"x","n":1}'])).toEqual({ title: 'x', n: 1 });
  });

  it('types key=value words sensibly', () => {
    expect(
      parseToolArguments([
        'title=hello world',
        'n=42',
        'f=-1.5',
        'ok=true',
        'no=false',
        'nil=null',
        'zip=01234',
        'list=[1,2]',
        'obj={"a":1}',
        'bad={x',
      ]),
    ).toEqual({
      title: 'hello world',
      n: 42,
      f: -1.5,
      ok: true,
      no: false,
      nil: null,
      zip: '01234',
      list: [1, 2],
      obj: { a: 1 },
      bad: '{x',
    });
  });

  it('takes key:=json as exactly that JSON, nests dotted keys and collects repeated keys', () => {
    expect(parseToolArguments(['id:="42"', 'a.b=1', 'a.c=x', 'tag=x', 'tag=y'])).toEqual({
      id: '42',
      a: { b: 1, c: 'x' },
      tag: ['x', 'y'],
    });
  });

  it('refuses malformed arguments with a clear message', () => {
    expect(() => parseToolArguments(['{"a":'])).toThrow(/not valid JSON/);
    expect(() => parseToolArguments(['[1]'])).toThrow(/expected key=value/);
    expect(() => parseToolArguments(['novalue'])).toThrow(/expected key=value/);
    expect(() => parseToolArguments(['x:=nope'])).toThrow(/x:= needs JSON/);
    expect(() => parseToolArguments(['__proto__.x=1'])).toThrow(/refusing/);
  });
});

describe('elicitModeOf', () => {
  it('defaults to prompt on a terminal and return otherwise', () => {
    expect(elicitModeOf(undefined, {}, true)).toBe('prompt');
    expect(elicitModeOf(undefined, {}, false)).toBe('return');
  });

  it('takes the flag over MCPX_ELICIT and refuses unknown modes', () => {
    expect(elicitModeOf('decline', { MCPX_ELICIT: 'auto' }, true)).toBe('decline');
    expect(elicitModeOf(undefined, { MCPX_ELICIT: 'auto' }, true)).toBe('auto');
    expect(() => elicitModeOf('ask', {}, true)).toThrow(/--elicit takes prompt \| return \| auto \| decline \| error/);
  });
});
