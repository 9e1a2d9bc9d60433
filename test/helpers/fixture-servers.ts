/**
 * Starts the fixture servers of examples/servers/ for tests: as stdio config entries, as HTTP child processes
 * on a free port, or in memory. Shared by every area's tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemoryTransport, type Transport } from '@modelcontextprotocol/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createDualEraServer } from '../../examples/servers/dual-era.mjs';
import { createLegacyServer, type LegacyOptions } from '../../examples/servers/legacy-v1.mjs';

export type FixtureKind = 'dual-era' | 'legacy-v1';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Absolute paths of the fixture server scripts. */
export const FIXTURE_PATHS: Record<FixtureKind, string> = {
  'dual-era': join(root, 'examples', 'servers', 'dual-era.mjs'),
  'legacy-v1': join(root, 'examples', 'servers', 'legacy-v1.mjs'),
};

/** An `mcpServers` entry that spawns the fixture over stdio. */
export function stdioFixture(
  kind: FixtureKind,
  env: Record<string, string> = {},
): { command: string; args: string[]; env: Record<string, string> } {
  return { command: process.execPath, args: [FIXTURE_PATHS[kind], '--stdio'], env };
}

export interface HttpFixture {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** Spawns the fixture with `--http --port 0` and resolves with the URL it prints. */
export async function startHttpFixture(kind: FixtureKind, env: Record<string, string> = {}): Promise<HttpFixture> {
  const child: ChildProcess = spawn(process.execPath, [FIXTURE_PATHS[kind], '--http', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        child.stdout?.off('data', onData);
        resolveUrl(line.trim());
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${kind} --http exited (${code}) before printing its URL: ${stderr}`)));
  });
  return {
    url,
    pid: child.pid ?? -1,
    close: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** A dual-era (or v1) server served in this process over a linked in-memory pair: hand `transport` to a client. */
export function inMemoryFixture(
  kind: FixtureKind,
  legacyOptions: LegacyOptions = {},
): { transport: Transport; close(): Promise<void> } {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  if (kind === 'dual-era') {
    const handle = serveStdio(({ era }) => createDualEraServer({ era }), { transport: serverSide });
    return { transport: clientSide, close: () => handle.close() };
  }
  const server = createLegacyServer(legacyOptions);
  // The v1 server takes the v2 in-memory transport: both speak the same Transport shape.
  void server.connect(serverSide as never);
  return { transport: clientSide, close: () => server.close() };
}

/** A temp file the fixtures append one line to per process start (MCPX_FIXTURE_SPAWN_LOG). */
export function spawnLog(): { env: Record<string, string>; count(): number } {
  const file = join(mkdtempSync(join(tmpdir(), 'mcpx-spawns-')), 'spawns.log');
  return {
    env: { MCPX_FIXTURE_SPAWN_LOG: file },
    count: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0),
  };
}

/** What an asking fixture tool echoes back: the answers the server received, per question key. */
export interface FixtureEcho {
  tool: string;
  era: 'legacy' | 'modern';
  received: Record<string, { action: 'accept' | 'decline' | 'cancel' | 'missing'; content?: Record<string, unknown> }>;
  rounds?: number;
  state?: unknown;
  text?: string;
}

export function fixtureEcho(result: object): FixtureEcho {
  if (!('structuredContent' in result) || !result.structuredContent)
    throw new Error(`fixture result has no structuredContent: ${JSON.stringify(result)}`);
  return result.structuredContent as FixtureEcho;
}

/** Records every JSON-RPC message a client sends through `transport` (a wire tap for asserting what went out). */
export function tapTransport(
  transport: Transport,
  sent: Array<Record<string, any>> = [],
): { transport: Transport; sent: Array<Record<string, any>> } {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push(JSON.parse(JSON.stringify(message)) as Record<string, any>);
    return send(message, options);
  };
  return { transport, sent };
}

/** A host-wired server entry for `createMcpx({ servers })`: an in-memory fixture, tapped. */
export function inMemoryServer(
  kind: FixtureKind,
  era: 'auto' | 'legacy' | 'modern' = 'auto',
  legacyOptions: LegacyOptions = {},
): {
  connector: { connect(): Transport; era: 'auto' | 'legacy' | 'modern' };
  sent: Array<Record<string, any>>;
  close(): Promise<void>;
} {
  const sent: Array<Record<string, any>> = [];
  const closers: Array<() => Promise<void>> = [];
  return {
    sent,
    connector: {
      era,
      connect: () => {
        const fixture = inMemoryFixture(kind, legacyOptions);
        closers.push(fixture.close);
        return tapTransport(fixture.transport, sent).transport;
      },
    },
    close: async () => {
      await Promise.all(closers.map((c) => c().catch(() => undefined)));
    },
  };
}
