/** The config's `web` block (the daemon's listener for paired devices): taken as written, every problem names its field. */
import { describe, expect, it } from 'vitest';
import { isMcpxError, type Issue } from '../../src/errors.js';
import { parseConfig } from '../../src/config/index.js';

function problems(web: unknown): Issue[] {
  try {
    parseConfig({ mcpServers: {}, web }, 'mcpx.json', {});
  } catch (error) {
    if (isMcpxError(error, 'CONFIG_INVALID')) return error.data!.issues as Issue[];
    throw error;
  }
  return [];
}

describe('the web block', () => {
  it('takes TLS paths or a proxy with its url, and leaves a config without one as it was', () => {
    const tls = { listen: '0.0.0.0:8443', cert: 'tls/cert.pem', key: 'tls/key.pem' };
    expect(parseConfig({ mcpServers: {}, web: tls }, 'mcpx.json', {}).web).toEqual(tls);
    const proxied = { listen: '127.0.0.1:8080', behindProxy: true, url: 'https://inbox.example.com' };
    expect(parseConfig({ mcpServers: {}, web: proxied }, 'mcpx.json', {}).web).toEqual(proxied);
    expect(parseConfig({ mcpServers: {} }, 'mcpx.json', {}).web).toBeUndefined();
  });

  it('names the field of each problem', () => {
    expect(problems({ listen: 'everywhere' })).toMatchObject([{ field: 'web.listen' }]);
    expect(problems({ listen: '8443', cert: 'c.pem' })).toMatchObject([{ field: 'web.key' }]);
    expect(problems({ listen: '8443', key: 'k.pem' })).toMatchObject([{ field: 'web.cert' }]);
    expect(problems({ listen: '8443', behindProxy: true })).toMatchObject([{ field: 'web.url' }]);
    expect(problems({ listen: '8443', cert: 'c', key: 'k', behindProxy: true })).toMatchObject([{ field: 'web.behindProxy' }]);
    expect(problems({ listen: '8443', tls: true })[0]!.message).toContain('unknown field "tls"');
    expect(problems('0.0.0.0:8443')).toMatchObject([{ field: 'web' }]);
  });
});
