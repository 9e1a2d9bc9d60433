/**
 * #33 item 2: the state dir holds every answer, task arguments and results, and the key that signs serve's
 * `requestState`. Whichever command creates it first, it is 0700 and every file in it 0600, and another local
 * user (`runuser -u nobody`) can neither list it nor read a file in it. An existing dir left open by an older mcpx
 * is tightened, and the command says so once on stderr. Each run is the built CLI in a state dir under a parent
 * made 0755 (a mkdtemp dir is 0700 already, which would hide an open state dir from the attacker).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/broker/stores/sqlite/sqlite.js';
import { tightenPrivateDir } from '../../src/private-files.js';
import { runCli, type CliRun } from '../helpers/cli-run.js';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { serveSetup, v2Client } from '../helpers/serve.js';

const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find((path) => existsSync(path));
const canImpersonate = RUNUSER !== undefined && process.getuid?.() === 0;

/** A parent dir anyone may enter (0755), holding the config; the state dir inside it is the CLI's to create. */
function openParent(): { dir: string; state: string; env: Record<string, string>; configPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-perm-'));
  chmodSync(dir, 0o755);
  const configPath = join(dir, 'mcpx.json');
  writeFileSync(configPath, JSON.stringify({ mcpServers: { fx: stdioFixture('dual-era') } }));
  chmodSync(configPath, 0o644);
  const state = join(dir, 'state');
  return { dir, state, configPath, env: { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: state } };
}

const mcpx = (args: string[], cwd: string, env: Record<string, string>): Promise<CliRun> =>
  runCli(args, { cwd, env, timeoutMs: 60_000 });

/** Every path under `dir` (files, sockets, sub-dirs), depth first. */
function everything(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(entry.parentPath, entry.name);
    return entry.isDirectory() ? [path, ...everything(path)] : [path];
  });
}

const modeOf = (path: string): string => (lstatSync(path).mode & 0o777).toString(8);

/** The owner's alone: the dir 0700, sub-dirs 0700, every file 0600; and nobody else can list or read any of it. */
function expectPrivate(state: string, expectFiles: string[]): void {
  expect(modeOf(state), `${state}`).toBe('700');
  const paths = everything(state);
  for (const name of expectFiles) expect(paths.map((p) => p.slice(state.length + 1))).toContain(name);
  for (const path of paths) expect(`${path} ${modeOf(path)}`).toBe(`${path} ${lstatSync(path).isDirectory() ? '700' : '600'}`);
  if (!canImpersonate) {
    console.warn('state-permissions: runuser is absent (or not root): the other-user reads were not tried');
    return;
  }
  const asNobody = (...command: string[]) => spawnSync(RUNUSER!, ['-u', 'nobody', '--', ...command], { encoding: 'utf8' });
  const listing = asNobody('ls', '-la', state);
  expect(listing.status, `nobody listed ${state}: ${listing.stdout}`).not.toBe(0);
  for (const path of paths) {
    const read = asNobody('cat', path);
    expect(read.status, `nobody read ${path}`).not.toBe(0);
    expect(read.stderr).toMatch(/Permission denied/);
  }
}

describe("the state dir is the owner's alone, whichever command creates it", () => {
  const daemons: Array<{ cwd: string; env: Record<string, string>; configPath: string }> = [];
  afterEach(async () => {
    for (const d of daemons.splice(0)) await mcpx(['daemon', 'stop', '--config', d.configPath], d.cwd, d.env);
  });

  it('mcpx elicit list', async () => {
    const p = openParent();
    const run = await mcpx(['elicit', 'list'], p.dir, p.env);
    expect(run.code, run.stderr).toBe(0);
    expectPrivate(p.state, ['mcpx.sqlite']);
  });

  it('mcpx log', async () => {
    const p = openParent();
    const run = await mcpx(['log'], p.dir, p.env);
    expect(run.code, run.stderr).toBe(0);
    expectPrivate(p.state, ['mcpx.sqlite']);
  });

  it('mcpx serve, started, asked a question through and stopped', async () => {
    const setup = serveSetup({ fx: stdioFixture('dual-era') });
    chmodSync(setup.dir, 0o755);
    const client = await v2Client(setup, { era: 'legacy', answer: () => ({ action: 'accept', content: { confirm: true } }) });
    try {
      const result = await client.callTool('ask_confirm');
      expect(JSON.stringify(result)).toContain('"action":"accept"');
      // While serve runs, the WAL and its index are open beside the file.
      expectPrivate(setup.env.MCPX_STATE_DIR!, ['mcpx.sqlite', 'mcpx.sqlite-wal', 'mcpx.sqlite-shm', 'era-cache.json']);
    } finally {
      await client.close();
    }
    expectPrivate(setup.env.MCPX_STATE_DIR!, ['mcpx.sqlite', 'era-cache.json']);
  });

  it('mcpx call through a daemon with a loopback port (its socket, lock, log and token file)', async () => {
    const p = openParent();
    daemons.push({ cwd: p.dir, env: p.env, configPath: p.configPath });
    const started = await mcpx(['daemon', 'start', '--port', '0', '--config', p.configPath], p.dir, p.env);
    expect(started.code, started.stderr).toBe(0);
    const call = await mcpx(['call', 'fx.ask_confirm', '--elicit=return', '--config', p.configPath], p.dir, p.env);
    expect(call.code, call.stderr).toBe(75);
    const names = readdirSync(p.state);
    const daemonFiles = names.filter((n) => n.startsWith('daemon-'));
    expect(daemonFiles.map((n) => n.replace(/-[0-9a-f]{16}\./, '.')).sort()).toEqual(
      ['daemon.json', 'daemon.lock', 'daemon.log', 'daemon.sock'].sort(),
    );
    expectPrivate(p.state, ['mcpx.sqlite', 'mcpx.sqlite-wal', 'mcpx.sqlite-shm', 'era-cache.json', ...daemonFiles]);
  });

  it('an existing open dir (an older mcpx) is tightened, with its files, and said so once on stderr', async () => {
    const p = openParent();
    // As an older mcpx left it: the dir 0755, the store and a cache 0644.
    mkdirSync(p.state, { mode: 0o755 });
    chmodSync(p.state, 0o755);
    const first = await mcpx(['elicit', 'list'], p.dir, p.env);
    expect(first.code, first.stderr).toBe(0);
    chmodSync(p.state, 0o755);
    chmodSync(join(p.state, 'mcpx.sqlite'), 0o644);
    writeFileSync(join(p.state, 'era-cache.json'), '{}\n', { mode: 0o644 });
    chmodSync(join(p.state, 'era-cache.json'), 0o644);

    const tightened = await mcpx(['elicit', 'list'], p.dir, p.env);
    expect(tightened.code, tightened.stderr).toBe(0);
    const notices = tightened.stderr.split('\n').filter((line) => line.includes(p.state));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/other users/);
    expect(notices[0]).toContain('0700');
    expectPrivate(p.state, ['mcpx.sqlite', 'era-cache.json']);

    const again = await mcpx(['elicit', 'list'], p.dir, p.env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain(p.state);
  });
});

describe('outside the CLI', () => {
  it("openSqliteStore makes an app's own file, left 0644 with its WAL by an older mcpx, 0600", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-perm-app-'));
    chmodSync(dir, 0o755);
    const file = join(dir, 'questions.sqlite');
    // Held open, so its WAL and the WAL's index are there too.
    const first = await openSqliteStore(file);
    for (const name of readdirSync(dir)) chmodSync(join(dir, name), 0o644);
    const second = await openSqliteStore(file);
    try {
      const names = readdirSync(dir).sort();
      expect(names).toEqual(['questions.sqlite', 'questions.sqlite-shm', 'questions.sqlite-wal']);
      for (const name of names) expect(`${name} ${modeOf(join(dir, name))}`).toBe(`${name} 600`);
    } finally {
      await second.close();
      await first.close();
    }
    // The app's own directory is left as the app made it.
    expect(modeOf(dir)).toBe('755');
  });

  it('refuses a shared (sticky) directory as the state dir, and changes nothing in it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-perm-shared-'));
    chmodSync(dir, 0o1777);
    expect(() => tightenPrivateDir(dir)).toThrow(/shared directory .*MCPX_STATE_DIR to a directory of your own/);
    expect((lstatSync(dir).mode & 0o7777).toString(8)).toBe('1777');
  });
});
