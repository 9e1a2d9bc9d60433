import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecretStore, SECRETS_FILE_NAME, type SecretStore } from '../../src/secrets/index.js';
import { startKeychain, type TestKeychain } from '../helpers/keychain.js';

const run = promisify(execFile);
const script = join(import.meta.dirname, '..', 'helpers', 'secret-process.ts');
const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-secrets-'));
  dirs.push(dir);
  return dir;
};

async function inProcess(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ kind: string; value?: string | null; reason?: string }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', script, ...args], { env: { ...process.env, ...env } });
  return JSON.parse(stdout.trim()) as { kind: string; value?: string | null; reason?: string };
}

/** Every file under dir, read as bytes. */
function filesUnder(dir: string): Array<{ path: string; text: string }> {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .map((path) => ({ path, text: readFileSync(path).toString('latin1') }));
}

let keychain: TestKeychain;
beforeAll(async () => {
  keychain = await startKeychain();
  Object.assign(process.env, keychain.env);
});
afterAll(async () => {
  await keychain.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function behavesAsAStore(open: () => Promise<SecretStore>): void {
  it('gets what was set, overwrites, and deletes', async () => {
    const store = await open();
    expect(await store.get('oauth:https://issuer.test', 'github')).toBeUndefined();
    await store.set('oauth:https://issuer.test', 'github', 'tok-1');
    await store.set('oauth:https://issuer.test', 'gitlab', 'tok-2');
    await store.set('credential', 'github', 'ghp_other');
    await store.set('oauth:https://issuer.test', 'github', 'tok-3');
    expect(await store.get('oauth:https://issuer.test', 'github')).toBe('tok-3');
    expect(await store.get('oauth:https://issuer.test', 'gitlab')).toBe('tok-2');
    expect(await store.get('credential', 'github')).toBe('ghp_other');
    expect(await store.delete('oauth:https://issuer.test', 'github')).toBe(true);
    expect(await store.delete('oauth:https://issuer.test', 'github')).toBe(false);
    expect(await store.get('oauth:https://issuer.test', 'github')).toBeUndefined();
    expect(await store.get('oauth:https://issuer.test', 'gitlab')).toBe('tok-2');
  });

  it('keeps values of any text exactly', async () => {
    const store = await open();
    const value = JSON.stringify({ access_token: 'a"b\\c', emoji: '🔑', newline: 'x\ny' });
    await store.set('json', 'acct', value);
    expect(await store.get('json', 'acct')).toBe(value);
  });
}

describe('openSecretStore on the OS keychain (Secret Service)', () => {
  const stateDir = tempDir();
  const open = () => openSecretStore({ stateDir });

  it('uses the keychain where one answers', async () => {
    const store = await open();
    expect(store.kind).toBe('keychain');
    expect(store.location).toMatch(/Secret Service|Keychain|Credential Manager/);
  });

  behavesAsAStore(open);

  it('shares secrets with other processes and writes nothing under the state dir', async () => {
    const value = `ghp_${Date.now().toString(36)}keychainonly`;
    expect(await inProcess(['set', stateDir, 'credential', 'cross', value], keychain.env)).toEqual({ kind: 'keychain' });
    expect(await (await open()).get('credential', 'cross')).toBe(value);
    expect(await inProcess(['get', stateDir, 'credential', 'cross'], keychain.env)).toEqual({ kind: 'keychain', value });
    for (const file of filesUnder(stateDir)) expect(file.text, file.path).not.toContain(value);
    // gnome-keyring's own files hold it encrypted, never as plain text
    for (const file of filesUnder(keychain.dataDir)) expect(file.text, file.path).not.toContain(value);
  });
});

describe('openSecretStore on the file fallback', () => {
  const stateDir = join(tempDir(), 'state');
  const open = () => openSecretStore({ stateDir, prefer: 'file' });

  behavesAsAStore(open);

  it('keeps the file 0600 in a 0700 dir and leaves no temp or lock files', async () => {
    const store = await open();
    await store.set('credential', 'mode', 'v');
    expect(store.kind).toBe('file');
    expect(store.location).toBe(join(stateDir, SECRETS_FILE_NAME));
    expect(statSync(store.location).mode & 0o777).toBe(0o600);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    expect(readdirSync(stateDir)).toEqual([SECRETS_FILE_NAME]);
  });

  it('loses no secret when processes write at once', async () => {
    const dir = join(tempDir(), 'state');
    const values = (prefix: string) => Array.from({ length: 8 }, (_, i) => `${prefix}${i}`);
    await Promise.all(
      ['a', 'b', 'c', 'd'].map((p) => inProcess(['set', dir, 'race', p, ...values(p)], { MCPX_SECRET_STORE: 'file' })),
    );
    const store = await openSecretStore({ stateDir: dir, prefer: 'file' });
    for (const p of ['a', 'b', 'c', 'd'])
      for (const [i, value] of values(p).entries()) expect(await store.get('race', i === 0 ? p : `${p}-${i}`)).toBe(value);
  });

  it('refuses a secrets file it cannot read as JSON, and leaves it as it was', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, SECRETS_FILE_NAME), 'not json', { mode: 0o600 });
    const store = await openSecretStore({ stateDir: dir, prefer: 'file' });
    await expect(store.set('s', 'a', 'v')).rejects.toMatchObject({
      code: 'SECRET_STORE_FAILED',
      message: expect.stringContaining('move it aside'),
    });
    expect(readFileSync(join(dir, SECRETS_FILE_NAME), 'utf8')).toBe('not json');
  });

  it('is where auto lands when no keychain answers, and says why', async () => {
    const dir = tempDir();
    const noBus = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-bus')}` };
    const outcome = await inProcess(['get', dir, 'credential', 'none'], noBus);
    expect(outcome).toMatchObject({ kind: 'file', value: null, reason: expect.stringMatching(/^no keychain: /) });
    await expect(
      inProcess(['get', dir, 'credential', 'none'], { ...noBus, MCPX_SECRET_STORE: 'keychain' }),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('no keychain works here'),
    });
  });
});
