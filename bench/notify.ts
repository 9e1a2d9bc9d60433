/**
 * Notifications through the built CLI and its daemon: time from a question opening (`elicit.open` in `mcpx log`) to
 * its POST on a loopback receiver, and how long `mcpx call` takes to exit 75 with a dead and a hanging receiver in
 * the `notify` list against none (delivery runs beside the call, so the two should match).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchFigure, BenchSuite } from './index.js';

const ROUNDS = Number(process.env.BENCH_NOTIFY_ROUNDS ?? 15);
const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const cli = join(root, 'dist', 'cli.js');
const fixture = { command: process.execPath, args: [join(root, 'examples', 'servers', 'legacy-v1.mjs'), '--stdio'] };

type Run = (args: string[]) => Promise<{ code: number; stdout: string; ms: number }>;

function place(notify: unknown[]): Run {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-notify-'));
  writeFileSync(join(dir, 'mcpx.json'), JSON.stringify({ mcpServers: { legacy: fixture }, notify }));
  const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: join(dir, 'state'), MCPX_CONFIG_DIR: join(dir, 'c') };
  return (args) =>
    new Promise((done) => {
      const started = performance.now();
      execFile(process.execPath, [cli, ...args], { cwd: dir, env }, (error, stdout) =>
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, ms: performance.now() - started }),
      );
    });
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Calls that ask, one at a time, each cancelled after; the call's time to exit 75 and the question's id. */
async function asks(run: Run, rounds: number): Promise<Array<{ id: string; ms: number }>> {
  const out: Array<{ id: string; ms: number }> = [];
  await run(['call', 'legacy.ask_confirm']); // warm: the daemon and the server start
  for (let i = 0; i < rounds; i++) {
    const call = await run(['call', 'legacy.ask_confirm']);
    const id = /elc-[0-9a-f]{16}/.exec(call.stdout)?.[0];
    if (call.code !== 75 || !id) throw new Error(`expected exit 75 with a question, got ${call.code}`);
    out.push({ id, ms: call.ms });
    await run(['elicit', 'cancel', id]);
  }
  return out;
}

export const run: BenchSuite = async () => {
  const got = new Map<string, number>();
  const live = await listen((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { id, event } = JSON.parse(body) as { id: string; event: string };
      if (event === 'opened') got.set(id, Date.now());
      res.end('ok');
    });
  });
  const hanging = await listen(() => undefined);
  const dead = await listen(() => undefined);
  await new Promise((done) => dead.server.close(done));
  const places = {
    live: place([{ webhook: live.url }]),
    none: place([]),
    failing: place([
      { webhook: dead.url, retries: 1 },
      { webhook: hanging.url, timeoutMs: 2_000, retries: 1 },
    ]),
  };
  try {
    const sent = await asks(places.live, ROUNDS);
    await new Promise((done) => setTimeout(done, 500));
    const log = (await places.live(['log', '--json', '--limit', '10000'])).stdout.split('\n').filter(Boolean);
    const openedAt = new Map<string, number>();
    for (const line of log) {
      const event = JSON.parse(line) as { kind: string; elicit?: string; at: number };
      if (event.kind === 'elicit.open' && event.elicit) openedAt.set(event.elicit, event.at);
    }
    const latency = sent.filter((s) => got.has(s.id)).map((s) => got.get(s.id)! - openedAt.get(s.id)!);
    const plain = await asks(places.none, ROUNDS);
    const failing = await asks(places.failing, ROUNDS);
    const note = `${ROUNDS} calls of a fixture tool that asks, one at a time, warm daemon; loaded shared machine`;
    return [
      {
        suite: 'notify',
        name: 'question opened -> webhook POST received: p50',
        value: median(latency),
        unit: 'ms',
        target: 'under 1 s',
        met: Math.max(...latency) < 1_000 && latency.length === ROUNDS,
        note: `${latency.length}/${ROUNDS} received; ${note}`,
      },
      { suite: 'notify', name: 'question opened -> webhook POST received: max', value: Math.max(...latency), unit: 'ms' },
      { suite: 'notify', name: 'mcpx call to exit 75, no sinks: p50', value: median(plain.map((c) => c.ms)), unit: 'ms' },
      {
        suite: 'notify',
        name: 'mcpx call to exit 75, dead + hanging webhooks: p50',
        value: median(failing.map((c) => c.ms)),
        unit: 'ms',
        note: 'delivery runs beside the call: about the same as with no sinks',
      },
    ] satisfies BenchFigure[];
  } finally {
    await Promise.all(Object.values(places).map((p) => p(['daemon', 'stop'])));
    hanging.server.closeAllConnections();
    hanging.server.close();
    live.server.close();
  }
};
