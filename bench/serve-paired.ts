/**
 * Paired A/B for `mcpx serve` over stdio: each round times one call through serve, then the same call straight to
 * the upstream, so load spikes hit both; reports p50s, the p50 of the per-round difference and serve's CPU time per
 * call (from /proc, Linux). DIST=<dir with cli.js> times another build (a baseline); TOOL=ask_form for a question.
 *   node --import tsx bench/serve-paired.ts        (after npm run build)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const root = resolve(import.meta.dirname, '..');
const FIXTURE = join(root, 'examples/servers/dual-era.mjs');
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const env = { ...process.env, MCPX_STATE_DIR: join(dir, 'state'), HOME: dir } as Record<string, string>;
const cfg = join(dir, 'c.json');
writeFileSync(cfg, JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE, '--stdio'] } } }));
const c = new Client(
  { name: 'b', version: '1' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
const ct = new StdioClientTransport({
  command: process.execPath,
  args: [(process.env.DIST ?? join(root, 'dist')) + '/cli.js', 'serve', '--config', cfg],
  env,
});
await c.connect(ct);
const { readFileSync } = await import('node:fs');
const cpu = () => {
  const f = readFileSync(`/proc/${ct.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const d = new Client(
  { name: 'b', version: '1' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
await d.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE, '--stdio'], env }));
const N = Number(process.env.N ?? 300);
const tool = process.env.TOOL ?? 'no_ask';
const args = tool === 'no_ask' ? { text: 'x' } : {};
if (tool !== 'no_ask')
  for (const k of [c, d])
    k.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { repo: 'me/bench' } }));
for (let i = 0; i < 20; i++) {
  await c.callTool({ name: tool, arguments: args });
  await d.callTool({ name: tool, arguments: args });
}
const s: number[] = [],
  e: number[] = [];
let cpuThrough = 0;
for (let i = 0; i < N; i++) {
  const c0 = cpu();
  let t = performance.now();
  await c.callTool({ name: tool, arguments: args });
  s.push(performance.now() - t);
  cpuThrough += cpu() - c0;
  t = performance.now();
  await d.callTool({ name: tool, arguments: args });
  e.push(performance.now() - t);
}
const p = (a: number[], q: number) => [...a].sort((x, y) => x - y)[Math.floor(a.length * q)]!;
const diffs = s.map((v, i) => v - e[i]!);
console.log(
  tool,
  'through p50',
  p(s, 0.5).toFixed(2),
  'direct p50',
  p(e, 0.5).toFixed(2),
  'added p50 (paired)',
  p(diffs, 0.5).toFixed(2),
  'serve cpu ms/call',
  (cpuThrough / N).toFixed(2),
);
await c.close();
await d.close();
