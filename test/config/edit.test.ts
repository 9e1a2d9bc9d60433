/**
 * `mcpx add`'s edit of a config file's text: the new server goes in with the file's own indentation and line
 * endings, every comment and existing entry stays as written, a name in use is refused unless forced, and an
 * entry the schema refuses is never written.
 */
import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { addServerEntry } from '../../src/config/index.js';

const options = { file: 'mcpx.json', env: {} };

describe('addServerEntry', () => {
  it('adds after the last server, keeping comments, their places and the other entries as written', () => {
    const text = [
      '// my servers',
      '{',
      '    /* the ones I use */',
      '    "mcpServers": {',
      '        "a": {"command": "x"}, // keep this here',
      '    },',
      '    "elicit": {"mode": "ask"}',
      '}',
      '',
    ].join('\n');
    const out = addServerEntry(text, 'tok', { command: 'node', env: { TOKEN: { ask: 'TOKEN', secret: true } } }, options);
    expect(out).toContain('// my servers');
    expect(out).toContain('/* the ones I use */');
    expect(out).toContain('        "a": {"command": "x"}, // keep this here\n        "tok": {\n            "command": "node",');
    expect(out).toContain('    "elicit": {"mode": "ask"}');
    expect(parse(out)).toEqual({
      mcpServers: { a: { command: 'x' }, tok: { command: 'node', env: { TOKEN: { ask: 'TOKEN', secret: true } } } },
      elicit: { mode: 'ask' },
    });
  });

  it('adds a comma where the last server had none, into an empty map, and with tabs and CRLF', () => {
    const noComma = addServerEntry(
      '{\n  "mcpServers": {\n    "a": { "command": "x" } // mine\n  }\n}\n',
      'b',
      { url: 'https://example.com/mcp' },
      options,
    );
    expect(noComma).toContain('"a": { "command": "x" }, // mine\n    "b": {\n      "url": "https://example.com/mcp"\n    }\n  }');
    const empty = addServerEntry('{\r\n\t"mcpServers": {}\r\n}\r\n', 'b', { command: 'y' }, options);
    expect(empty).toBe('{\r\n\t"mcpServers": {\r\n\t\t"b": {\r\n\t\t\t"command": "y"\r\n\t\t}\r\n\t}\r\n}\r\n');
    expect(parse(addServerEntry(undefined, 'first', { command: 'y' }, options))).toEqual({
      mcpServers: { first: { command: 'y' } },
    });
  });

  it('refuses a name in use unless forced, then replaces only its value', () => {
    const text = '{\n  "mcpServers": {\n    // old\n    "a": { "command": "x" },\n    "b": { "command": "z" }\n  }\n}\n';
    expect(() => addServerEntry(text, 'a', { command: 'y' }, options)).toThrow(
      expect.objectContaining({ code: 'SERVER_EXISTS' }),
    );
    const forced = addServerEntry(text, 'a', { command: 'y' }, { ...options, force: true });
    expect(forced).toContain('// old\n    "a": {\n      "command": "y"\n    },\n    "b": { "command": "z" }');
  });

  it('writes nothing the schema refuses, and keeps VS Code\'s "servers" key', () => {
    expect(() => addServerEntry('{"mcpServers": {}}', 'bad', { url: 'ftp://x' }, options)).toThrow(/field "url"/);
    expect(() => addServerEntry('{"mcpServers": {}}', 'a.b', { command: 'x' }, options)).toThrow(/cannot name a server/);
    expect(parse(addServerEntry('{"servers": {}}', 'a', { command: 'x' }, options))).toEqual({
      servers: { a: { command: 'x' } },
    });
  });
});
