import { describe, expect, it } from 'vitest';
import { askedEntries } from '../../src/client/credentials.js';
import { parseConfig } from '../../src/config/index.js';
import { McpxError } from '../../src/errors.js';

const server = (oauth: unknown) => ({ mcpServers: { notes: { url: 'https://notes.example.com/mcp', oauth } } });

function problems(oauth: unknown): string[] {
  try {
    parseConfig(server(oauth), 'mcpx.json', {});
  } catch (error) {
    if (error instanceof McpxError) return (error.data as { issues: Array<{ message: string }> }).issues.map((i) => i.message);
    throw error;
  }
  return [];
}

const asked = { ask: 'Notes client secret', secret: true };

describe('the oauth block', () => {
  it('accepts each machine grant with its secret kept in the secret store or a file', () => {
    expect(problems({ grant: 'client_credentials', clientId: 'svc', clientSecret: asked })).toEqual([]);
    expect(
      problems({ grant: 'client_credentials', clientId: 'svc', privateKey: { file: '~/keys/svc.pem' }, algorithm: 'ES256' }),
    ).toEqual([]);
    expect(problems({ grant: 'jwt-bearer', clientId: 'wl', assertion: { file: '/var/run/secrets/mcp/token' } })).toEqual([]);
    expect(
      problems({
        grant: 'enterprise',
        clientId: 'app',
        clientSecret: asked,
        idp: { tokenEndpoint: 'https://idp.example.com/token', clientId: 'idp-app', idToken: { ask: 'ID token', secret: true } },
      }),
    ).toEqual([]);
    expect(problems({ dpop: false })).toEqual([]);
  });

  it('refuses a machine grant secret written in the config file, saying where it goes instead', () => {
    const [message] = problems({ grant: 'client_credentials', clientId: 'svc', clientSecret: 's3cret' });
    expect(message).toContain('field "oauth.clientSecret"');
    expect(message).toContain('never written in the config file');
    expect(message).toContain('{"ask"');
    expect(message).not.toContain('s3cret');
  });

  it('says which setting a grant lacks or does not take', () => {
    expect(problems({ grant: 'client_credentials', clientSecret: asked })).toEqual([
      expect.stringContaining('grant "client_credentials" needs "clientId"'),
    ]);
    expect(problems({ grant: 'client_credentials', clientId: 'svc' })).toEqual([
      expect.stringContaining('exactly one of "clientSecret" or "privateKey"'),
    ]);
    expect(problems({ grant: 'client_credentials', clientId: 'svc', privateKey: asked })).toEqual([
      expect.stringContaining('needs "algorithm"'),
    ]);
    expect(problems({ grant: 'jwt-bearer', clientId: 'wl' })).toEqual([expect.stringContaining('needs "assertion"')]);
    expect(problems({ assertion: asked })).toEqual([expect.stringContaining('"assertion" is for grant "jwt-bearer"')]);
    expect(
      problems({ grant: 'enterprise', clientId: 'app', clientSecret: asked, idp: { clientId: 'x', idToken: asked } }),
    ).toEqual([expect.stringContaining('needs "idp.issuer" or "idp.tokenEndpoint"')]);
    expect(problems({ grant: 'password' })[0]).toContain('field "oauth.grant"');
  });

  it("asks for the secrets it keeps, at first use, under the server's credential service", () => {
    const config = parseConfig(
      server({
        grant: 'enterprise',
        clientId: 'app',
        clientSecret: asked,
        idp: { tokenEndpoint: 'https://idp.example.com/token', clientId: 'idp-app', idToken: { ask: 'ID token', secret: true } },
      }),
      'mcpx.json',
      {},
    );
    const entries = askedEntries('notes', config.mcpServers.notes!);
    expect(entries.map((e) => [e.field, e.key, e.ref.service, e.ref.account])).toEqual([
      ['oauth', 'clientSecret', 'credential:notes', 'oauth.clientSecret'],
      ['oauth', 'idp.idToken', 'credential:notes', 'oauth.idp.idToken'],
    ]);
  });
});
