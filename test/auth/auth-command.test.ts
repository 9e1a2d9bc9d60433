/** `mcpx auth status` and `mcpx auth logout` on the built CLI, over the real file secret store. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverCredentials } from '../../src/auth/index.js';
import { openSecretStore } from '../../src/secrets/index.js';

const cli = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli.js');

describe('mcpx auth', () => {
  it('says where tokens are kept and who is signed in, never the token; logout forgets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-auth-cli-'));
    const state = join(dir, 'state');
    writeFileSync(
      join(dir, 'mcpx.json'),
      JSON.stringify({ mcpServers: { notes: { url: 'http://127.0.0.1:9/mcp' }, other: { url: 'http://127.0.0.1:9/x' } } }),
    );
    const store = await openSecretStore({ stateDir: state, prefer: 'file' });
    await serverCredentials(store, 'notes').saveTokens('https://as.example', {
      access_token: 'do-not-print',
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: 'r',
    });
    const env = { ...process.env, MCPX_STATE_DIR: state, MCPX_SECRET_STORE: 'file' };
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, 'auth', ...args], { cwd: dir, env, encoding: 'utf8' });

    const status = run('status');
    expect(status.status).toBe(0);
    expect(status.stdout).toContain(`tokens are stored in the file: ${join(state, 'secrets.json')}`);
    expect(status.stdout).toMatch(/notes: signed in with https:\/\/as\.example, access token expires in \d+s, can refresh/);
    expect(status.stdout).toContain('other: not signed in');
    expect(status.stdout + status.stderr).not.toContain('do-not-print');

    expect(run('logout', 'notes').stdout).toContain('notes: signed out');
    expect(run('status').stdout).toContain('notes: not signed in');
    expect(run('logout', 'notes').stdout).toContain('notes: was not signed in');
  });
});
