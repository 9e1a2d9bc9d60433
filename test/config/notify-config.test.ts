/** The config's `notify` list: each entry validated, and every problem names the entry, the field and what fits. */
import { describe, expect, it } from 'vitest';
import { isMcpxError, type Issue } from '../../src/errors.js';
import { parseConfig } from '../../src/config/index.js';

function problems(notify: unknown): Issue[] {
  try {
    parseConfig({ mcpServers: {}, notify }, 'mcpx.json', {});
  } catch (error) {
    if (isMcpxError(error, 'CONFIG_INVALID')) return error.data!.issues as Issue[];
    throw error;
  }
  return [];
}

describe('the notify list', () => {
  it('takes webhooks (with an asked secret), commands and desktop, naming each', () => {
    const config = parseConfig(
      {
        mcpServers: {},
        notify: [
          { webhook: 'https://hooks.example.com/x', secret: { ask: 'signing key', secret: true }, on: ['opened', 'expired'] },
          { webhook: 'https://hooks.slack.com/y', format: 'slack', match: { server: 'git*', audience: 'person' } },
          { command: ['notify-me', '--loud'], name: 'pager' },
          { desktop: true },
        ],
      },
      'mcpx.json',
      {},
    );
    expect(config.notify?.map((sink) => sink.name)).toEqual(['webhook[0]', 'webhook[1]', 'pager', 'desktop[0]']);
    expect(config.notify?.[0]).toMatchObject({ secret: { ask: 'signing key', secret: true }, on: ['opened', 'expired'] });
  });

  it('leaves a config without one as it was', () => {
    expect(parseConfig({ mcpServers: {} }, 'mcpx.json', {}).notify).toBeUndefined();
  });

  it('names the entry and the field of each problem, and says what fits', () => {
    const issues = problems([
      { webhook: 'ftp://example.com' },
      { command: [] },
      { desktop: true, on: ['sometimes'] },
      { desktop: true, command: ['x'] },
      { webhook: 'https://example.com', match: { who: 'me' } },
      { webhook: 'https://example.com', secret: 'in-the-file' },
      {},
    ]);
    expect(issues.map((i) => i.field)).toEqual([
      'notify[0].webhook',
      'notify[1].command',
      'notify[2].on',
      'notify[3]',
      'notify[4].match',
      'notify[5].secret',
      'notify[6]',
    ]);
    const messages = issues.map((i) => i.message);
    expect(messages[0]).toBe('notify[0] (webhook): field "webhook": expected an http(s) URL the notification is POSTed to');
    expect(messages[2]).toContain('"opened", "answered", "expired"');
    expect(messages[3]).toBe('notify[3]: has "command" and "desktop"; expected exactly one');
    expect(messages[4]).toBe('notify[4] (webhook): field "match": unknown field "who"');
    expect(messages[5]).toContain('asked once and kept in the secret store');
    expect(messages[6]).toContain('has none of "webhook", "command", "desktop"');
  });

  it('refuses a list that is not a list, and two entries with one name', () => {
    expect(problems({ webhook: 'https://example.com' })[0]!.message).toContain('expected an array of sinks');
    expect(
      problems([
        { desktop: true, name: 'me' },
        { command: ['x'], name: 'me' },
      ])[0],
    ).toMatchObject({
      field: 'notify[1].name',
    });
  });
});
