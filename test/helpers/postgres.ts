/**
 * A real PostgreSQL for a test: a fresh cluster in a temp dir (a copy of one `initdb` made once per machine and
 * kept in the temp dir), started by `pg_ctl` on a free loopback port with its socket in that dir, no fsync; stopped
 * (and the dir removed) afterwards. Postgres refuses to run as root, so as root the cluster belongs to the
 * `postgres` user (Debian's package creates it).
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PostgresServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Debian keeps the server binaries out of PATH, under /usr/lib/postgresql/<major>/bin. */
function binary(name: string): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const major of majors) if (existsSync(join(root, major, 'bin', name))) return join(root, major, 'bin', name);
  }
  return name;
}

/** Runs a program (a postgres tool by its name, or a path), as the postgres user when we are root. */
function asOwner(tool: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const path = tool.startsWith('/') ? tool : binary(tool);
  return userInfo().uid === 0 ? run('runuser', ['-u', 'postgres', '--', path, ...args]) : run(path, args);
}

/** A temp dir the cluster's owner may write in. */
async function ownedTempDir(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (userInfo().uid === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(group.trim()));
  }
  return dir;
}

/**
 * The data dir of a cluster nobody runs, made by `initdb` the first time any test asks (per machine, user and
 * initdb) and copied for each server after: initdb is most of what starting a server costs. Made aside and renamed
 * into place, so a test file running beside this one sees it whole or not at all.
 */
async function template(): Promise<string> {
  const initdb = binary('initdb');
  const path = join(tmpdir(), `mcpx-pg-template-${userInfo().uid}-${initdb.replace(/\W+/g, '_')}`);
  if (existsSync(path)) return path;
  const dir = await ownedTempDir('mcpx-pg-making-');
  try {
    await asOwner(initdb, [
      '-D',
      join(dir, 'data'),
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
      '--no-instructions',
    ]);
    renameSync(join(dir, 'data'), path);
  } catch (error) {
    // Another test file made it first: use theirs.
    if (!existsSync(path)) throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return path;
}

/** Creates a cluster and starts it; resolves once it accepts connections. */
export async function startPostgres(): Promise<PostgresServer> {
  const source = await template();
  const dir = await ownedTempDir('mcpx-pg-');
  const data = join(dir, 'data');
  try {
    await asOwner('/bin/cp', ['-a', source, data]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    try {
      await asOwner('pg_ctl', ['start', '-D', data, '-w', '-t', '30', '-l', join(dir, 'log'), '-o', options]);
    } catch (error) {
      if (attempt < 2) continue; // the port was taken between our probe and postgres binding it
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      async stop() {
        await asOwner('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']).catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}
