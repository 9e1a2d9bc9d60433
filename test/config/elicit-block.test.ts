/** loadConfig returns the parsed `elicit` block, so no surface reads the config file again for its policy. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';

function configFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'mcpx-elicit-block-')), 'mcpx.json');
  writeFileSync(path, text);
  return path;
}

describe('loadConfig: the elicit block', () => {
  it('returns the policy of the file, TTL included', () => {
    const path = configFile('{ "mcpServers": {}, /* JSONC */ "elicit": { "mode": "decline", "ttl": "5m" }, }');
    const loaded = loadConfig({ config: path, env: {} });
    expect(loaded.policy.mode).toBe('decline');
    expect(loaded.policy.ttlMs).toBe(300_000);
  });

  it('returns the default policy when there is no elicit block or no file', () => {
    expect(loadConfig({ config: configFile('{ "mcpServers": {} }'), env: {} }).policy.mode).toBe('ask');
    expect(
      loadConfig({ cwd: mkdtempSync(join(tmpdir(), 'mcpx-no-config-')), env: { MCPX_CONFIG_DIR: '/nonexistent' } }).policy.rules,
    ).toEqual([]);
  });
});
