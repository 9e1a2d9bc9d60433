/**
 * The node:http fetch of Streamable HTTP upstreams against a real local server: a JSON answer whole, an event
 * stream delivered as it is written (not when it ends), sockets kept alive, an abort mid-stream, a compressed
 * answer, a redirect followed, and what it leaves to the global fetch. A whole answer reads as a Response reads.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNodeFetch, type NodeFetch } from '../../src/fast/index.js';

let server: Server;
let base: string;
let nodeFetch: NodeFetch;
const sockets = new Set<unknown>();
let release: (() => void) | undefined;
let posts = 0;

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

beforeEach(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    sockets.add(req.socket);
    const body = await bodyOf(req);
    if (req.url === '/json')
      return void res
        .writeHead(200, { 'content-type': 'application/json', 'x-echo': req.headers['x-test'] ?? '' })
        .end(JSON.stringify({ method: req.method, body, type: req.headers['content-type'] ?? null }));
    if (req.url === '/gzip')
      return void res
        .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        .end(gzipSync(JSON.stringify({ zipped: true })));
    if (req.url === '/moved') return void res.writeHead(307, { location: '/json' }).end();
    if (req.url === '/accepted') return void res.writeHead(202).end();
    if (req.url === '/bad-json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":');
    if (req.url === '/refused') return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad"}');
    if (req.url === '/cut') {
      posts += 1;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    if (req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n');
      // The rest waits for the test: the first event must arrive before the stream ends.
      release = () => res.end('data: {"n":2}\n\n');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  nodeFetch = createNodeFetch();
  sockets.clear();
  release = undefined;
  posts = 0;
});

afterEach(async () => {
  nodeFetch.close();
  release?.();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('createNodeFetch', () => {
  it('sends the method, headers and body, and reads a JSON answer whole, on one kept-alive socket', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await nodeFetch.fetch(new URL(`${base}/json`), {
        method: 'POST',
        headers: new Headers({ 'content-type': 'application/json', 'x-test': `t${i}` }),
        body: '{"a":"é"}',
      });
      expect(response).toBeInstanceOf(Response);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-echo')).toBe(`t${i}`);
      expect(await response.json()).toEqual({ method: 'POST', body: '{"a":"é"}', type: 'application/json' });
    }
    expect(sockets.size).toBe(1);
  });

  it('passes an event stream on as it is written', async () => {
    const response = await nodeFetch.fetch(`${base}/sse`, { method: 'POST', body: '{}' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe('data: {"n":1}\n\n');
    release!();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value);
    expect(rest).toBe('data: {"n":2}\n\n');
  });

  it('errors the stream when the request is aborted mid-stream', async () => {
    const abort = new AbortController();
    const response = await nodeFetch.fetch(`${base}/sse`, { method: 'POST', body: '{}', signal: abort.signal });
    const reader = response.body!.getReader();
    await reader.read();
    abort.abort();
    await expect(reader.read()).rejects.toBeDefined();
  });

  it('rejects with the abort reason when aborted before sending', async () => {
    const abort = new AbortController();
    abort.abort(new Error('stop'));
    await expect(nodeFetch.fetch(`${base}/json`, { signal: abort.signal })).rejects.toThrow('stop');
  });

  it('decodes a compressed answer, follows a redirect, and gives a bodyless status no body', async () => {
    expect(await (await nodeFetch.fetch(`${base}/gzip`)).json()).toEqual({ zipped: true });
    const moved = await nodeFetch.fetch(`${base}/moved`, { method: 'POST', body: 'x' });
    expect(await moved.json()).toMatchObject({ method: 'POST', body: 'x' });
    const manual = await nodeFetch.fetch(`${base}/moved`, { method: 'POST', body: 'x', redirect: 'manual' });
    expect(manual.status).toBe(307);
    expect(manual.headers.get('location')).toBe('/json');
    const accepted = await nodeFetch.fetch(`${base}/accepted`, { method: 'POST', body: '{}' });
    expect(accepted.status).toBe(202);
    expect(await accepted.text()).toBe('');
  });

  it('fails an answer cut off mid-body, on a kept-alive socket too, without sending the request again', async () => {
    await (await nodeFetch.fetch(`${base}/json`)).json();
    await expect(nodeFetch.fetch(`${base}/cut`, { method: 'POST', body: '{}' })).rejects.toThrow(TypeError);
    expect(posts).toBe(1);
  });

  it('reads a whole JSON answer as a Response reads one: once, as text, bytes, a stream or a clone', async () => {
    const url = `${base}/json`;
    const expected = { method: 'GET', body: '', type: null };
    const first = await nodeFetch.fetch(url);
    expect(first).toBeInstanceOf(Response);
    expect(first.bodyUsed).toBe(false);
    expect(await first.json()).toEqual(expected);
    expect(first.bodyUsed).toBe(true);
    await expect(first.text()).rejects.toThrow(TypeError);
    expect(() => first.clone()).toThrow(TypeError);
    const cloned = await nodeFetch.fetch(url);
    expect(JSON.parse(await cloned.clone().text())).toEqual(expected);
    expect(new TextDecoder().decode(await cloned.arrayBuffer())).toBe(JSON.stringify(expected));
    const streamed = await nodeFetch.fetch(url);
    const read = await new Response(streamed.body).json();
    expect(read).toEqual(expected);
    expect(streamed.bodyUsed).toBe(true);
    await expect(streamed.json()).rejects.toThrow(TypeError);
    expect((await (await nodeFetch.fetch(url)).blob()).size).toBe(JSON.stringify(expected).length);
  });

  it('sends a form body with its content type, as the global fetch would', async () => {
    const response = await nodeFetch.fetch(`${base}/json`, { method: 'POST', body: new URLSearchParams({ a: '1 2' }) });
    expect(await response.json()).toEqual({
      method: 'POST',
      body: 'a=1+2',
      type: 'application/x-www-form-urlencoded;charset=UTF-8',
    });
  });

  it('fails a refused connection as the global fetch does', async () => {
    const closed = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    nodeFetch.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(createNodeFetch().fetch(`${closed}/json`)).rejects.toThrow(TypeError);
    // Reopened for afterEach.
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
});
