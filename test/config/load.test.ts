import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/index.js';
import { McpxError } from '../../src/errors.js';

function workspace(files: Record<string, unknown>): { cwd: string; env: Record<string, string | undefined> } {
  const root = mkdtempSync(join(tmpdir(), 'mcpx-config-'));
  const cwd = join(root, 'project');
  const configHome = join(root, 'config-home');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(configHome, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    const path = name.startsWith('~/') ? join(configHome, name.slice(2)) : join(cwd, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  }
  return { cwd, env: { MCPX_CONFIG_DIR: configHome, HOME: root } };
}

const one = (name: string) => ({ mcpServers: { [name]: { command: 'node', args: [`${name}.js`] } } });

function errorOf(fn: () => unknown): McpxError {
  try {
    fn();
  } catch (error) {
    if (error instanceof McpxError) return error;
    throw error;
  }
  throw new Error('expected an McpxError');
}

describe('loadConfig discovery', () => {
  it('prefers ./mcpx.json over ./.mcp.json over the user config dir', () => {
    const all = workspace({ 'mcpx.json': one('a'), '.mcp.json': one('b'), '~/mcpx.json': one('c') });
    expect(Object.keys(loadConfig(all).config.mcpServers)).toEqual(['a']);
    const noMcpx = workspace({ '.mcp.json': one('b'), '~/mcpx.json': one('c') });
    expect(Object.keys(loadConfig(noMcpx).config.mcpServers)).toEqual(['b']);
    const userOnly = workspace({ '~/mcpx.json': one('c') });
    const loaded = loadConfig(userOnly);
    expect(Object.keys(loaded.config.mcpServers)).toEqual(['c']);
    expect(loaded.path).toBe(join(userOnly.env.MCPX_CONFIG_DIR!, 'mcpx.json'));
  });

  it('uses an explicit path (--config) before anything else, relative to cwd', () => {
    const ws = workspace({ 'mcpx.json': one('a'), 'other.json': one('z') });
    expect(Object.keys(loadConfig({ ...ws, config: 'other.json' }).config.mcpServers)).toEqual(['z']);
    expect(Object.keys(loadConfig({ ...ws, env: { ...ws.env, MCPX_CONFIG: 'other.json' } }).config.mcpServers)).toEqual(['z']);
  });

  it('refuses an explicit path that does not exist with CONFIG_NOT_FOUND', () => {
    const ws = workspace({});
    expect(errorOf(() => loadConfig({ ...ws, config: 'missing.json' }))).toMatchObject({
      code: 'CONFIG_NOT_FOUND',
      message: expect.stringContaining('missing.json'),
    });
  });

  it('finds nothing without failing and says where it looked', () => {
    const ws = workspace({});
    const loaded = loadConfig(ws);
    expect(loaded.config.mcpServers).toEqual({});
    expect(loaded.path).toBeUndefined();
    // The working directory, then each parent up to home (issue #35), then the user config.
    expect(loaded.searched).toEqual([
      join(ws.cwd, 'mcpx.json'),
      join(ws.cwd, '.mcp.json'),
      join(ws.env.HOME!, 'mcpx.json'),
      join(ws.env.HOME!, '.mcp.json'),
      join(ws.env.MCPX_CONFIG_DIR!, 'mcpx.json'),
    ]);
  });

  it('reads VS Code files, which call the map "servers"', () => {
    const ws = workspace({ 'mcpx.json': { servers: { gh: { type: 'http', url: 'https://example.com/mcp' } } } });
    expect(loadConfig(ws).config.mcpServers).toEqual({ gh: { type: 'http', url: 'https://example.com/mcp' } });
  });
});

describe('config validation', () => {
  it('names the file, the server and the field, and says what is expected', () => {
    const ws = workspace({ 'mcpx.json': { mcpServers: { github: { command: 42 } } } });
    const error = errorOf(() => loadConfig(ws));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(join(ws.cwd, 'mcpx.json'));
    expect(error.message).toContain('server "github": field "command": expected a non-empty string: the program to run');
    expect(error.message).toContain('got number 42');
    expect(error.data?.issues).toEqual([expect.objectContaining({ field: 'mcpServers.github.command' })]);
  });

  it('lists every problem at once', () => {
    const error = errorOf(() =>
      parseConfig(
        {
          mcpServers: {
            both: { command: 'x', url: 'https://e.com' },
            neither: { args: [] },
            badArgs: { command: 'x', args: 'one two' },
            badUrl: { url: 'ftp://e.com' },
            sse: { type: 'sse', url: 'https://e.com/sse' },
            'bad.name': { command: 'x' },
            badEra: { command: 'x', era: 'future' },
          },
        },
        'test.json',
        {},
      ),
    );
    const fields = (error.data?.issues as Array<{ field: string }>).map((i) => i.field);
    expect(fields).toEqual([
      'mcpServers.both',
      'mcpServers.neither',
      'mcpServers.badArgs.args',
      'mcpServers.badUrl.url',
      'mcpServers.sse.type',
      'mcpServers.bad.name',
      'mcpServers.badEra.era',
    ]);
    expect(error.message).toContain('server "both": has both "command" and "url"');
    expect(error.message).toContain('server "badArgs": field "args": expected an array of strings');
    expect(error.message).toContain('server "badUrl": field "url": expected an http(s) URL');
    expect(error.message).toContain('"sse" is not supported');
    expect(error.message).toContain('server "badEra": field "era": expected "auto"');
  });

  it('names the file of a JSON syntax error', () => {
    const ws = workspace({ '.mcp.json': '{"mcpServers": {' });
    expect(errorOf(() => loadConfig(ws))).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining(`${join(ws.cwd, '.mcp.json')} is not valid JSON`),
    });
  });

  it('refuses a file without mcpServers, saying what the file should look like', () => {
    expect(errorOf(() => parseConfig({ github: { command: 'x' } }, 'f.json', {})).message).toContain(
      'the "mcpServers" key is missing',
    );
  });

  it('keeps keys other tools put in the same file', () => {
    expect(
      parseConfig({ mcpServers: { a: { command: 'x', disabled: false, autoApprove: [] } } }, 'f', {}).mcpServers.a,
    ).toMatchObject({ disabled: false, autoApprove: [] });
  });
});

describe('environment expansion', () => {
  it('expands ${VAR} and ${VAR:-default} in command, args, env, url and headers', () => {
    const config = parseConfig(
      {
        mcpServers: {
          local: { command: '${NODE_BIN}', args: ['--root', '${ROOT:-/srv}'], env: { TOKEN: '${TOKEN}' } },
          remote: { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        },
      },
      'f',
      { NODE_BIN: '/usr/bin/node', TOKEN: 's3cret', HOST: 'example.com' },
    );
    expect(config.mcpServers.local).toEqual({ command: '/usr/bin/node', args: ['--root', '/srv'], env: { TOKEN: 's3cret' } });
    expect(config.mcpServers.remote).toEqual({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer s3cret' } });
  });

  it('refuses a reference to an unset variable, naming server and field', () => {
    const error = errorOf(() =>
      parseConfig({ mcpServers: { gh: { command: 'x', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } } } }, 'f.json', {}),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('mcpServers.gh.env.GITHUB_TOKEN');
    expect(error.message).toContain('GITHUB_TOKEN, which is not set');
  });
});
