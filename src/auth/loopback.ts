/**
 * The loopback redirect (RFC 8252 §7.3): a listener on 127.0.0.1 that the authorization server sends the browser
 * back to. One per process, opened on first need; each sign-in waits for its own `state`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthorizationReturn } from './provider.js';

export const CALLBACK_PATH = '/oauth/callback';

export interface LoopbackReturn extends AuthorizationReturn {
  close(): Promise<void>;
}

export interface LoopbackOptions {
  /** 0 (default): any free port. A fixed one for an authorization server that wants the exact redirect registered. */
  port?: number;
  /** Told of every browser that comes back (the daemon answers the sign-in question with it). */
  onArrive?: (params: URLSearchParams) => void;
}

/** Opens the listener and answers each arriving browser with a short page. */
export async function openLoopbackReturn(options: LoopbackOptions = {}): Promise<LoopbackReturn> {
  const { port = 0, onArrive } = options;
  const waiting = new Map<string, (params: URLSearchParams) => void>();
  const arrived = new Map<string, URLSearchParams>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH) {
      res.writeHead(404).end();
      return;
    }
    const state = url.searchParams.get('state') ?? '';
    const resolve = waiting.get(state);
    if (resolve) {
      waiting.delete(state);
      resolve(url.searchParams);
    } else arrived.set(state, url.searchParams);
    onArrive?.(url.searchParams);
    const failed = url.searchParams.has('error');
    res.writeHead(failed ? 400 : 200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(failed ? 'mcpx: the sign-in was refused; see the terminal.\n' : 'mcpx: signed in. You can close this tab.\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port: bound } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${bound}${CALLBACK_PATH}`,
    expect: (state) => {
      const early = arrived.get(state);
      if (early) {
        arrived.delete(state);
        return Promise.resolve(early);
      }
      return new Promise((resolve) => waiting.set(state, resolve));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
