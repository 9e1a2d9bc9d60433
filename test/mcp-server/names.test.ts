import { describe, expect, it } from 'vitest';
import { HOST_SAFE_NAME, assignNames } from '../../src/surfaces/mcp-server/names.js';

const names = (map: Map<string, { server: string; tool: string }>) =>
  Object.fromEntries([...map].map(([name, ref]) => [`${ref.server}.${ref.tool}`, name]));

describe('assignNames', () => {
  it('prefixes with the server when several are served, and keeps bare names for one', () => {
    expect(names(assignNames([{ server: 'github', tool: 'create_issue' }], { prefixed: true }))).toEqual({
      'github.create_issue': 'github__create_issue',
    });
    expect(names(assignNames([{ server: 'github', tool: 'create_issue' }], { prefixed: false }))).toEqual({
      'github.create_issue': 'create_issue',
    });
  });

  it('cleans characters hosts refuse and marks the cleaned name with a hash of the original', () => {
    const out = names(assignNames([{ server: 'fs', tool: 'read.file' }], { prefixed: true }));
    expect(out['fs.read.file']).toMatch(/^fs__read_file_[0-9a-f]{8}$/);
  });

  it('never gives two tools one name, and gives the same names for the same tools in any order', () => {
    const refs = [
      { server: 'a', tool: 'x.y' },
      { server: 'a', tool: 'x_y' },
      { server: 'a', tool: 'x-y' },
    ];
    const first = names(assignNames(refs, { prefixed: false }));
    const again = names(assignNames([...refs].reverse(), { prefixed: false }));
    expect(again).toEqual(first);
    expect(new Set(Object.values(first)).size).toBe(3);
  });

  it('cuts long names to 64 characters, all host-safe', () => {
    const long = 't'.repeat(80);
    const out = [
      ...assignNames(
        [
          { server: 'server', tool: long },
          { server: 'server', tool: `${long}2` },
        ],
        { prefixed: true },
      ).keys(),
    ];
    expect(out).toHaveLength(2);
    for (const name of out) expect(name).toMatch(HOST_SAFE_NAME);
    expect(out[0]).not.toBe(out[1]);
  });

  it('keeps reserved names for mcpx itself', () => {
    const out = names(
      assignNames([{ server: 'one', tool: 'mcpx_elicit_list' }], { prefixed: false, reserved: new Set(['mcpx_elicit_list']) }),
    );
    expect(out['one.mcpx_elicit_list']).toMatch(/^mcpx_elicit_list_[0-9a-f]{8}$/);
  });
});
