#!/usr/bin/env node
/**
 * The floor for `mcpx serve` in bench/serve.ts: a bare relay taking serve's arguments (`serve [--http] --config
 * <file>`) in front of the config's one server, forwarding bytes with no JSON, no checks, no broker. With `--http`, a
 * node:http reverse proxy over a keep-alive agent; without, a line relay over stdio to the server it spawns.
 * Paired, as a baseline build: `BEFORE=bench/bare-proxy node --import tsx bench/serve-http-paired.ts`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';

const config = JSON.parse(readFileSync(process.argv[process.argv.indexOf('--config') + 1], 'utf8'));
const upstreamConfig = Object.values(config.mcpServers)[0];

/** Each complete line of `from` written to `to` as it arrives (JSON-RPC over stdio is one message a line). */
function relayLines(from, to) {
  let partial = '';
  from.setEncoding('utf8');
  from.on('data', (chunk) => {
    const text = partial + chunk;
    const end = text.lastIndexOf('\n');
    if (end < 0) return void (partial = text);
    partial = text.slice(end + 1);
    to.write(text.slice(0, end + 1));
  });
}

if (!process.argv.includes('--http')) {
  const child = spawn(upstreamConfig.command, upstreamConfig.args ?? [], {
    env: { ...process.env, ...upstreamConfig.env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  relayLines(process.stdin, child.stdin);
  relayLines(child.stdout, process.stdout);
  process.stdin.on('end', () => child.stdin.end());
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  const upstream = new URL(upstreamConfig.url);
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = { ...req.headers, host: upstream.host, 'content-length': String(body.length) };
      delete headers.connection;
      const forwarded = request(upstream, { method: req.method, headers, agent }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forwarded.on('error', () => res.writeHead(502).end());
      forwarded.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/mcp`));
}
process.on('SIGTERM', () => process.exit(0));
