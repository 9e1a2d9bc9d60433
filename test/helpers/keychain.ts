/**
 * A real OS keychain for a test: a private D-Bus session bus and gnome-keyring-daemon's Secret Service on it,
 * unlocked with a throwaway password, its keyring files in a temp dir. CI installs gnome-keyring from Debian.
 * The bus has no service activation, so nothing but this daemon ever answers for org.freedesktop.secrets.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestKeychain {
  /** The variables a process needs to reach this keychain (merge into a child's env, or process.env). */
  env: { DBUS_SESSION_BUS_ADDRESS: string };
  /** Where gnome-keyring keeps its (encrypted) keyring files: outside any mcpx dir. */
  dataDir: string;
  stop(): Promise<void>;
}

export async function startKeychain(): Promise<TestKeychain> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-keychain-'));
  const address = `unix:path=${join(dir, 'bus')}`;
  const config = join(dir, 'bus.conf');
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>${address}</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>\n`,
  );
  const children: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const child of children.reverse()) if (child.exitCode === null) child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(bus);
    await firstLine(bus); // printed once the bus listens
    const env = { DBUS_SESSION_BUS_ADDRESS: address };
    const childEnv = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_RUNTIME_DIR: dir, ...env };
    const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
      env: childEnv,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    children.push(keyring);
    keyring.stdin?.end('test-keychain-password');
    await waitForName(env, 'org.freedesktop.secrets', keyring);
    return { env, dataDir: join(dir, 'data'), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0] ?? '');
    });
    child.once('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
    child.once('error', reject);
  });
}

/** The daemon claims its bus name once it serves; ask the bus until it has (bounded). */
async function waitForName(env: Record<string, string>, name: string, owner: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (owner.exitCode !== null) throw new Error(`gnome-keyring-daemon exited with ${owner.exitCode}`);
    const { stdout } = await run(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.NameHasOwner',
        `string:${name}`,
      ],
      { env: { ...process.env, ...env } },
    );
    if (stdout.includes('boolean true')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} never appeared on the test bus`);
}
