/** A real redis-server for a test: a free loopback port, a temp dir, no persistence; stopped by its pid. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
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

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.write('PING\r\n');
        socket.once('data', (data) => {
          socket.destroy();
          resolve(data.toString().startsWith('+PONG'));
        });
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not answer on port ${port} within ${timeoutMs} ms`);
}

/** Starts redis-server (on PATH; CI installs it from Debian) and waits until it answers PING. */
export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-redis-'));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    try {
      await waitForPort(port, child, 10_000);
    } catch (error) {
      child.kill('SIGKILL');
      if (attempt < 2) continue; // the port was taken between our probe and redis binding it
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      async stop() {
        if (child.exitCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}
