/**
 * The built CLI against the OAuth fixture (test/fixtures/servers/protected-http.mjs): a private home with config
 * and state dirs, a file secret store, and `run` for each CLI step as its own process with no stdin.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { runCli } from '../cli/helpers/run-cli.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = join(root, 'test', 'fixtures', 'servers', 'protected-http.mjs');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface OAuthCli {
  readonly home: string;
  /** The directory each command runs in (scripts go here). */
  readonly work: string;
  readonly env: Record<string, string>;
  /** The fixture's MCP endpoint, once started. */
  readonly mcpUrl: string;
  /** Starts the fixture with `args` and writes a config whose servers (default `notes`) all point at it. */
  start(args: string[], servers?: string[]): Promise<void>;
  /** One CLI command as its own process; `extra` adds to the environment (MCPX_SESSION_ID, BROWSER). */
  run(args: string[], extra?: Record<string, string>): Promise<CliRun>;
  /** The same command as a function in this process (main with captured IO); a daemon it starts is the built one. */
  runInProcess(args: string[], extra?: Record<string, string>): Promise<CliRun>;
  /** The fixture's counters (token grants, calls, refusals). */
  stats<T>(): Promise<T>;
  /** Stops the daemon the commands started, then the fixture. */
  stop(): Promise<void>;
}

export function oauthCli(prefix: string): OAuthCli {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const work = join(home, 'work');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    MCPX_CONFIG_DIR: join(home, 'config'),
    MCPX_STATE_DIR: join(home, 'state'),
    MCPX_SECRET_STORE: 'file',
  };
  let server: ChildProcess | undefined;
  let mcpUrl = '';
  const run = (args: string[], extra: Record<string, string> = {}): Promise<CliRun> =>
    new Promise((done) => {
      const options = { cwd: work, env: { ...env, ...extra }, timeout: 60_000 };
      const child = execFile(process.execPath, [cli, ...args], options, (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
      child.stdin?.end();
    });
  return {
    home,
    work,
    env,
    get mcpUrl() {
      return mcpUrl;
    },
    async start(args, servers = ['notes']) {
      if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run test:e2e builds, or npx tsup)`);
      server = spawn(process.execPath, [fixture, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
      const first = await createInterface({ input: server.stdout! })[Symbol.asyncIterator]().next();
      mcpUrl = first.value as string;
      mkdirSync(env.MCPX_CONFIG_DIR);
      mkdirSync(work);
      const mcpServers = Object.fromEntries(servers.map((name) => [name, { url: mcpUrl }]));
      writeFileSync(join(env.MCPX_CONFIG_DIR, 'mcpx.json'), JSON.stringify({ mcpServers }));
    },
    run,
    runInProcess: (args, extra = {}) =>
      runCli(args, {
        cwd: work,
        env: { ...env, MCPX_DAEMON_COMMAND: JSON.stringify([process.execPath, cli, 'daemon', 'run']), ...extra },
      }),
    async stats<T>() {
      return (await fetch(new URL('/stats', mcpUrl))).json() as Promise<T>;
    },
    async stop() {
      await run(['daemon', 'stop']);
      server?.kill();
    },
  };
}
