/**
 * Paired A/B for `mcpx serve --http`: each round makes one call through serve and the same call straight to the
 * upstream (the dual-era fixture over HTTP), so load spikes hit both; reports p50s and the p50 of the per-round
 * difference, for a plain call (no_ask) and a forwarded question answered at once (ask_form), and each serve's CPU
 * time per call (from /proc, Linux: steadier than wall time on a loaded machine). BEFORE=<dir with cli.js> adds a
 * second serve from another build to every round (before/after in one run); BEFORE=a,b adds several (each labelled
 * with the name of its dist directory's parent). BEFORE=bench/bare-proxy runs a bare node:http proxy in serve's
 * place: the floor any HTTP intermediary pays on this machine, measured in the same rounds. Added figures here read
 * 0.09-0.56 ms lower than in `npm run bench -- serve`'s blocks (a direct call made right after a call through an
 * intermediary is slower): use this to compare builds, the bench for the figure held to the target.
 *   node --import tsx bench/serve-http-paired.ts        (after npm run build; N=150 rounds by default)
 * TOOLS=no_ask runs one of the two; SERVE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" passes node flags to the serves only (for profiling them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const root = resolve(import.meta.dirname, '..');
const FIXTURE = join(root, 'examples', 'servers', 'dual-era.mjs');
const N = Number(process.env.N ?? 150);
const dir = mkdtempSync(join(tmpdir(), 'mcpx-bench-http-'));
// serve --http requires a bearer token on loopback too (earlier builds, when MCPX_SERVE_TOKEN is set): the bench
// sends it, as a host does, so the path timed is the one hosts take.
const TOKEN = 'bench-token-0123456789abcdef0123456789abcdef';
const env = { ...process.env, MCPX_STATE_DIR: join(dir, 'state'), HOME: dir, MCPX_SERVE_TOKEN: TOKEN };

function start(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) done({ url: out.split('\n')[0]!.trim(), child });
    });
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

async function connect(url: string): Promise<Client> {
  const client = new Client(
    { name: 'bench', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { repo: 'me/bench' } }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
  );
  return client;
}

/** CPU time (user + system, all threads) the process has used so far, in ms. */
function cpuMs(child: ChildProcess): number {
  const [user, system] = cpuSplit(child);
  return user + system;
}

/** [user, system] CPU time the process has used so far, in ms. */
function cpuSplit(child: ChildProcess): [number, number] {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return [Number(fields[11]) * 10, Number(fields[12]) * 10];
}

const p50 = (samples: number[]): number => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

const upstream = await start([FIXTURE, '--http', '--port', '0']);
const config = join(dir, 'mcpx.json');
writeFileSync(config, JSON.stringify({ mcpServers: { fx: { url: upstream.url } } }));
const builds: Array<[string, string]> = [['after', join(root, 'dist')]];
// BEFORE=a,b,...: several earlier builds (or bench/bare-proxy, the floor), labelled by their directories' names.
const befores = process.env.BEFORE?.split(',').filter(Boolean) ?? [];
const labelOf = (dir: string): string => basename(basename(resolve(dir)) === 'dist' ? resolve(dir, '..') : resolve(dir));
builds.unshift(...befores.map((dir): [string, string] => [befores.length > 1 ? labelOf(dir) : 'before', resolve(dir)]));
const nodeArgs = process.env.SERVE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const serves = await Promise.all(
  builds.map(([, dist]) => start([...nodeArgs, join(dist, 'cli.js'), 'serve', '--http', '--config', config])),
);
const direct = await connect(upstream.url);
const through = await Promise.all(serves.map((s) => connect(s.url)));
try {
  for (const tool of process.env.TOOLS?.split(',') ?? ['no_ask', 'ask_form']) {
    const args = tool === 'no_ask' ? { text: 'x' } : {};
    const call = async (client: Client): Promise<number> => {
      const t0 = performance.now();
      await client.callTool({ name: tool, arguments: args });
      return performance.now() - t0;
    };
    for (let i = 0; i < 20; i++) for (const client of [direct, ...through]) await call(client);
    const direct_: number[] = [];
    const added = through.map(() => [] as number[]);
    const viaServe = through.map(() => [] as number[]);
    const upstreamBefore = cpuMs(upstream.child);
    const cpuBefore = serves.map((s) => cpuMs(s.child));
    const sysBefore = serves.map((s) => cpuSplit(s.child)[1]);
    for (let i = 0; i < N; i++) {
      // Alternate the order so neither build always runs first.
      const order = i % 2 ? [...through.keys()] : [...through.keys()].reverse();
      const times: number[] = [];
      for (const k of order) times[k] = await call(through[k]!);
      const d = await call(direct);
      direct_.push(d);
      times.forEach((t, k) => (viaServe[k]!.push(t), added[k]!.push(t - d)));
    }
    const cpuPerCall = serves.map((s, k) => (cpuMs(s.child) - cpuBefore[k]!) / N);
    const sysPerCall = serves.map((s, k) => (cpuSplit(s.child)[1] - sysBefore[k]!) / N);
    // The upstream answers every call, direct or through a serve: the SDK server's own cost per request, for scale.
    const upstreamPerCall = (cpuMs(upstream.child) - upstreamBefore) / (N * (1 + serves.length));
    console.log(`${tool}: direct p50 ${p50(direct_).toFixed(2)} ms, upstream CPU ${upstreamPerCall.toFixed(2)} ms/call`);
    builds.forEach(([label], k) =>
      console.log(
        `  ${label.padEnd(12)} through serve p50 ${p50(viaServe[k]!).toFixed(2)} ms, added p50 (paired) ${p50(added[k]!).toFixed(2)} ms, serve CPU ${cpuPerCall[k]!.toFixed(2)} ms/call (system ${sysPerCall[k]!.toFixed(2)})`,
      ),
    );
  }
} finally {
  await Promise.all([direct, ...through].map((c) => c.close()));
  for (const s of serves) s.child.kill('SIGTERM');
  upstream.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
