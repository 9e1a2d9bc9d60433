/**
 * An env or headers value whose `${VAR}` is unset: loadConfig makes it a value asked at first use (kept in the secret
 * store, then filled where the reference stood), where parseConfig still refuses it (test/e2e/doctor.test.ts asks
 * for one end to end).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { askedEntries, readAsked } from '../../src/client/credentials.js';
import { loadConfig } from '../../src/config/index.js';
import { openFileSecretStore } from '../../src/secrets/file-store.js';

describe('an unset ${VAR} in env or headers', () => {
  it('loads as a value asked at first use, and fills the text it stood in', async () => {
    const { config } = loadConfig({
      config: {
        mcpServers: {
          local: { command: 'x', env: { TOKEN: '${UNSET_TOKEN}', PLAIN: '${SET}' } },
          remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${UNSET_TOKEN}', 'X-Set': '${SET}' } },
        },
      },
      env: { SET: 'given' },
    });
    expect(config.mcpServers.local).toMatchObject({
      env: { PLAIN: 'given', TOKEN: { ask: expect.stringContaining('${UNSET_TOKEN}'), secret: true } },
    });
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-unset-'));
    try {
      const store = openFileSecretStore(dir);
      const entries = askedEntries('remote', config.mcpServers.remote!);
      expect(entries.map((e) => [e.field, e.key, e.ref])).toEqual([
        ['headers', 'Authorization', { service: 'credential:remote', account: 'headers.Authorization' }],
      ]);
      expect((await readAsked(entries, store)).missing).toHaveLength(1);
      await store.set('credential:remote', 'headers.Authorization', 's3cret');
      expect((await readAsked(entries, store)).values).toEqual({ headers: { Authorization: 'Bearer s3cret' } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stays a config error where it cannot be asked: two unset in one value, or in args', () => {
    expect(() =>
      loadConfig({ config: { mcpServers: { a: { command: 'x', env: { BOTH: '${ONE}:${TWO}' } } } }, env: {} }),
    ).toThrow(/ONE, which is not set/);
    expect(() => loadConfig({ config: { mcpServers: { a: { command: 'x', args: ['${ONE}'] } } }, env: {} })).toThrow(
      /ONE, which is not set/,
    );
    expect(() =>
      loadConfig({ config: { mcpServers: { a: { command: 'x', env: { T: '${ONE}' } } } }, env: {}, unsetVariables: 'refuse' }),
    ).toThrow(/ONE, which is not set/);
  });
});
