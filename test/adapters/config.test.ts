/** Adapter entries in `mcpServers`: parsed beside servers, with errors that name the server and the field. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { McpxError } from '../../src/errors.js';

const issuesOf = (raw: unknown): string[] => {
  try {
    parseConfig(raw, 'mcpx.json', {});
  } catch (error) {
    return ((error as McpxError).data?.issues as Array<{ message: string }>).map((i) => i.message);
  }
  return [];
};

describe('adapter config entries', () => {
  it('keeps adapters apart from servers, methods upper-cased and ${VAR} expanded', () => {
    const config = parseConfig(
      {
        mcpServers: {
          fx: { command: 'node', args: ['x.mjs'] },
          api: {
            openapi: './api.yaml',
            headers: { authorization: 'Bearer ${TOKEN}' },
            methods: ['all'],
            confirm: ['post', 'DELETE'],
          },
          git: { cli: 'git', commands: { status: { args: ['status'] } } },
        },
      },
      'mcpx.json',
      { TOKEN: 't0k' },
    );
    expect(Object.keys(config.mcpServers)).toEqual(['fx']);
    expect(config.adapters).toEqual({
      api: { openapi: './api.yaml', headers: { authorization: 'Bearer t0k' }, methods: ['ALL'], confirm: ['POST', 'DELETE'] },
      git: { cli: 'git', commands: { status: { args: ['status'] } } },
    });
  });

  it('names the server and field of each mistake', () => {
    expect(issuesOf({ mcpServers: { api: { openapi: './a.yaml', methods: ['FETCH'], confrim: ['POST'] } } })).toEqual([
      expect.stringMatching(/^server "api": field "methods\.0": /),
      expect.stringMatching(/^server "api": .*confrim/),
    ]);
    expect(issuesOf({ mcpServers: { both: { openapi: './a.yaml', cli: 'git' } } })).toEqual([
      'server "both": has both "openapi" and "cli"; an adapter is one or the other',
    ]);
    expect(issuesOf({ mcpServers: { git: { cli: 'git', commands: { x: { args: 'status' } } } } })).toEqual([
      expect.stringMatching(/^server "git": field "commands\.x\.args": /),
    ]);
    expect(issuesOf({ mcpServers: { 'bad.name': { cli: 'git', commands: {} } } })).toEqual([
      'server "bad.name": the name may only use letters, digits, "_" and "-"',
    ]);
  });
});
