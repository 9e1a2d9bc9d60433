#!/usr/bin/env node
/**
 * The floor for `mcpx serve --http` in bench/serve.ts and bench/serve-http-paired.ts: a bare node:http reverse
 * proxy taking serve's arguments (`serve --http --config <file>`) in front of the config's one server. It reads each
 * request whole and forwards it over a keep-alive agent, and pipes the answer back: no JSON, no checks, no broker.
 * `npm run bench -- serve` times it beside serve; paired, run it as a baseline build:
 * `BEFORE=bench/bare-proxy node --import tsx bench/serve-http-paired.ts`.
 */
import { readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';

const config = JSON.parse(readFileSync(process.argv[process.argv.indexOf('--config') + 1], 'utf8'));
const upstream = new URL(Object.values(config.mcpServers)[0].url);
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
process.on('SIGTERM', () => process.exit(0));
