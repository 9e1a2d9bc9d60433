import { describe, expect, it } from 'vitest';
import { assignNames, memberName, typeName } from '../../src/codegen/names.js';

describe('memberName', () => {
  it('keeps names that already are identifiers', () => {
    expect(memberName('create_issue')).toBe('create_issue');
    expect(memberName('listFiles')).toBe('listFiles');
    expect(memberName('delete')).toBe('delete');
  });

  it('turns dashes, dots and spaces into camelCase', () => {
    expect(memberName('read-file')).toBe('readFile');
    expect(memberName('my.server')).toBe('myServer');
    expect(memberName('list all files')).toBe('listAllFiles');
    expect(memberName('get--thing..x')).toBe('getThingX');
  });

  it('prefixes a leading digit and suffixes inherited object members', () => {
    expect(memberName('2fa-setup')).toBe('_2faSetup');
    expect(memberName('__proto__')).toBe('__proto___');
    expect(memberName('constructor')).toBe('constructor_');
    expect(memberName('toString')).toBe('toString_');
  });

  it('never returns an empty or invalid name', () => {
    for (const name of ['', '---', '🙂', 'ünïcødé', '$', 'a b\nc'])
      expect(memberName(name)).toMatch(/^[A-Za-z_$][A-Za-z0-9_$]*$/);
  });
});

describe('typeName', () => {
  it('makes PascalCase names that never shadow the types generated code relies on', () => {
    expect(typeName('create_issue')).toBe('CreateIssue');
    expect(typeName('read-file')).toBe('ReadFile');
    expect(typeName('promise')).toBe('Promise_');
    expect(typeName('record')).toBe('Record_');
    expect(typeName('9lives')).toBe('T9lives');
    expect(typeName('input')).toBe('Input_');
  });
});

describe('assignNames', () => {
  it('resolves collisions after conversion with numbered suffixes', () => {
    const names = assignNames(['read-file', 'readFile', 'read.file'], memberName);
    expect(names.get('readFile')).toBe('readFile');
    expect(new Set(names.values()).size).toBe(3);
    expect([...names.values()].sort()).toEqual(['readFile', 'readFile_2', 'readFile_3']);
  });

  it('is stable whatever order the server lists the tools in', () => {
    const a = assignNames(['x-y', 'x.y', 'x_y', 'xY'], memberName);
    const b = assignNames(['xY', 'x_y', 'x.y', 'x-y'], memberName);
    expect([...a.entries()].sort()).toEqual([...b.entries()].sort());
    expect(a.get('xY')).toBe('xY');
    expect(a.get('x_y')).toBe('x_y');
  });

  it('avoids names already taken in the scope', () => {
    expect(assignNames(['github'], typeName, ['Github']).get('github')).toBe('Github_2');
    expect(typeName('tools')).toBe('Tools_');
  });
});
