/**
 * `npm run bench -- serve`: a tools/call through `mcpx serve` (the built CLI) against the same call made directly
 * to the upstream (the dual-era fixture), over stdio and over Streamable HTTP, as a ratio and as added p50; and a
 * forwarded question's round trip (the client answers at once) beyond the same question asked directly. Paired:
 * each round makes the call both ways (in turn first), and "added" is the p50 of the rounds' differences.
 * Requires `npm run build`. Figures on a shared machine are noisy: read them as orders of magnitude.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { BenchFigure } from './index.js';

const root = resolve(import.meta.dirname, '..');
const CLI = join(root, 'dist', 'cli.js');
const FIXTURE = join(root, 'examples', 'servers', 'dual-era.mjs');
const CALLS = Number(process.env.MCPX_BENCH_SERVE_CALLS ?? 150);
const WARMUP = 20;

function p50(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const client = new Client(
    { name: 'bench', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { repo: 'me/bench' } }));
  await client.connect(transport);
  return client;
}

interface Paired {
  direct: number;
  through: number;
  /** The p50 of each round's difference: a load spike hits both calls of a round, not one phase of the run. */
  added: number;
}

/** Each round makes the call both ways, in turn first, so both paths see the same machine. */
async function timePaired(direct: Client, through: Client, tool: string, args: Record<string, unknown>): Promise<Paired> {
  for (let i = 0; i < WARMUP; i++) {
    await direct.callTool({ name: tool, arguments: args });
    await through.callTool({ name: tool, arguments: args });
  }
  const once = async (client: Client): Promise<number> => {
    const t0 = performance.now();
    await client.callTool({ name: tool, arguments: args });
    return performance.now() - t0;
  };
  const directs: number[] = [];
  const throughs: number[] = [];
  const added: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    let d: number;
    let t: number;
    if (i % 2) {
      d = await once(direct);
      t = await once(through);
    } else {
      t = await once(through);
      d = await once(direct);
    }
    directs.push(d);
    throughs.push(t);
    added.push(t - d);
  }
  return { direct: p50(directs), through: p50(throughs), added: p50(added) };
}

function startPrinting(args: string[], env: NodeJS.ProcessEnv): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolveStart, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        resolveStart({
          url: out.split('\n')[0]!.trim(),
          stop: () =>
            new Promise<void>((done) => {
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

export async function run(): Promise<BenchFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-serve-'));
  const env = { ...process.env, MCPX_STATE_DIR: join(dir, 'state'), HOME: dir };
  const figures: BenchFigure[] = [];
  const pair = (name: string, { direct, through, added }: Paired, target?: string): void => {
    figures.push({ suite: 'serve', name: `${name}: direct p50`, value: direct, unit: 'ms' });
    figures.push({ suite: 'serve', name: `${name}: through mcpx serve p50`, value: through, unit: 'ms' });
    figures.push({
      suite: 'serve',
      name: `${name}: added p50`,
      value: added,
      unit: 'ms',
      ...(target ? { target } : {}),
    });
    figures.push({ suite: 'serve', name: `${name}: ratio`, value: through / direct, unit: 'x' });
  };
  try {
    // stdio
    const stdioConfig = join(dir, 'stdio.json');
    writeFileSync(stdioConfig, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE, '--stdio'] } } }));
    const direct = await connect(
      new StdioClientTransport({ command: process.execPath, args: [FIXTURE, '--stdio'], env: env as Record<string, string> }),
    );
    const through = await connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', '--config', stdioConfig],
        env: env as Record<string, string>,
      }),
    );
    try {
      pair('stdio tools/call no_ask', await timePaired(direct, through, 'no_ask', { text: 'x' }), 'at most 1 ms added');
      pair(
        'stdio forwarded question (ask_form, answered at once)',
        await timePaired(direct, through, 'ask_form', {}),
        'at most 5 ms beyond the answer',
      );
    } finally {
      await direct.close();
      await through.close();
    }
    // Streamable HTTP
    const upstream = await startPrinting([FIXTURE, '--http', '--port', '0'], env);
    const httpConfig = join(dir, 'http.json');
    writeFileSync(httpConfig, JSON.stringify({ mcpServers: { fx: { url: upstream.url } } }));
    const serve = await startPrinting([CLI, 'serve', '--http', '--config', httpConfig], env);
    const directHttp = await connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    const throughHttp = await connect(new StreamableHTTPClientTransport(new URL(serve.url)));
    try {
      pair('http tools/call no_ask', await timePaired(directHttp, throughHttp, 'no_ask', { text: 'x' }), 'at most 1 ms added');
      pair(
        'http forwarded question (ask_form, answered at once)',
        await timePaired(directHttp, throughHttp, 'ask_form', {}),
        'at most 5 ms beyond the answer',
      );
    } finally {
      await directHttp.close();
      await throughHttp.close();
      await serve.stop();
      await upstream.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
