/** The pieces `mcpx list` and `mcpx call` say things with: close matches, argument issues, a server's refusal, signatures. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkArguments } from '../../src/client/argument-check.js';
import { issuesFromServerText } from '../../src/client/server-refusal.js';
import { closeMatches, didYouMean } from '../../src/config/close-matches.js';
import { printResult } from '../../src/surfaces/cli/print-result.js';
import { describeTool, signatureOf } from '../../src/surfaces/cli/signatures.js';

describe('closeMatches', () => {
  it('finds a typo, a swap and a missing letter, and nothing for an unrelated name', () => {
    const known = ['echo', 'get-sum', 'get-env', 'ask_form'];
    expect(closeMatches('ecko', known)).toEqual(['echo']);
    expect(closeMatches('ehco', known)).toEqual(['echo']);
    expect(closeMatches('get-sun', known)).toEqual(['get-sum']);
    expect(closeMatches('weather', known)).toEqual([]);
    expect(didYouMean('askform', known)).toBe('; did you mean ask_form?');
    expect(didYouMean('zzz', known)).toBe('');
  });
});

describe('checkArguments', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { count: { type: 'number' }, mode: { enum: ['a', 'b'] }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['count'],
  };

  it('names the field, what it expected and what it got', () => {
    expect(checkArguments(schema, { count: 'three' }).map((i) => i.message)).toEqual(['count: expected number, got string']);
    expect(checkArguments(schema, {}).map((i) => i.message)).toEqual(['count: expected a value (required), got nothing']);
    expect(checkArguments(schema, { count: 1, mode: 'c', tags: [1] }).map((i) => i.message)).toEqual([
      'mode: expected one of "a", "b", got string "c"',
      'tags.0: expected string, got number',
    ]);
  });

  it('passes arguments that fit, and skips a schema it cannot compile', () => {
    expect(checkArguments(schema, { count: 2, mode: 'a' })).toEqual([]);
    expect(checkArguments({ type: 'object', properties: { x: { $ref: '#/nowhere' } } }, { x: 1 })).toEqual([]);
    expect(checkArguments(undefined, { anything: true })).toEqual([]);
  });
});

describe('issuesFromServerText', () => {
  it('reads the v2 and v1 SDK refusals as fields, and leaves other errors alone', () => {
    expect(
      issuesFromServerText(
        'Input validation error: Invalid arguments for tool sleep: ms: Invalid input: expected number, received string',
      )?.map((i) => i.message),
    ).toEqual(['ms: expected number, got string']);
    expect(
      issuesFromServerText(
        'MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Invalid input: expected number, received string at a\nInvalid input: expected number, received undefined at b',
      )?.map((i) => i.message),
    ).toEqual(['a: expected number, got string', 'b: expected number, got nothing']);
    expect(issuesFromServerText('MCP error -32602: Tool ech not found')).toBeUndefined();
    expect(issuesFromServerText('the disk is full')).toBeUndefined();
  });
});

describe('printResult on a refused call', () => {
  it('prints the fields instead of the raw -32602 text, and exits 1', () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const text =
      'MCP error -32602: Input validation error: Invalid arguments for tool sleep: Invalid input: expected number, received string at ms';
    const code = printResult({ content: [{ type: 'text', text }], isError: true }, { stdout, stderr, isTTY: false }, false, {
      server: 'old',
      tool: 'sleep',
    });
    expect(code).toBe(1);
    expect(String(stderr.read())).toBe(
      'mcpx: old.sleep refused its arguments:\n  ms: expected number, got string\nsee: mcpx list old --schema\n',
    );
  });
});

describe('signatures', () => {
  it('puts required arguments first and marks optional ones', () => {
    const tool = {
      name: 'create_issue',
      description: 'Opens an issue.',
      inputSchema: {
        type: 'object',
        properties: {
          body: { type: 'string' },
          repo: { type: 'string', description: 'owner/name' },
          labels: { type: 'array', items: { type: 'string' } },
          meta: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
        },
        required: ['repo'],
      },
    };
    expect(signatureOf(tool)).toBe('create_issue(repo: string, body?: string, labels?: string[], meta?: { a: integer })');
    expect(describeTool(tool, 100)).toEqual([
      '  create_issue(repo: string, body?: string, labels?: string[], meta?: { a: integer })',
      '    Opens an issue.',
      '      repo  owner/name',
    ]);
  });

  it('wraps a long signature one argument a line, and strips escape sequences from server text', () => {
    const tool = {
      name: 'x\u001b[31mevil',
      description: 'text \u001b]0;title\u0007 here',
      inputSchema: { type: 'object', properties: { first_argument: { type: 'string' }, second_argument: { type: 'number' } } },
    };
    expect(describeTool(tool, 40)).toEqual([
      '  xevil(',
      '      first_argument?: string,',
      '      second_argument?: number',
      '  )',
      '    text here',
    ]);
  });
});
