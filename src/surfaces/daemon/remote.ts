/**
 * The daemon's listener for phones: the web inbox on an address the user chose (`mcpx elicit web --pair --listen`),
 * over TLS from the user's certificate and key, or plain HTTP behind the reverse proxy the user names. Opened once,
 * on request over the unix socket; it answers paired devices only and closes with the daemon.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { McpxError } from '../../errors.js';
import type { RemoteAccess } from '../http/web/gate.js';
import { planListen, publicAddress, type ListenRequest } from '../http/web/listen.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

export interface RemoteListenerDeps {
  /** The app for the phones' listener (no bearer token; paired devices only, on these host names). */
  app(remote: RemoteAccess): { fetch: Parameters<typeof getRequestListener>[0] };
  /** Wraps the listener (the daemon counts its requests as activity). */
  wrap(listener: Listener): Listener;
  /** Told once it listens: the address devices open and the one it listens on. */
  opened(info: { url: string; listen: string; server: Server }): void;
}

const invalid = (message: string, cause?: unknown): McpxError =>
  new McpxError('LISTEN_INVALID', message, cause === undefined ? {} : { cause });

export function remoteListener(deps: RemoteListenerDeps): { open(request: ListenRequest | undefined): Promise<string> } {
  let opening: Promise<{ url: string; listen: string }> | undefined;
  const start = async (request: ListenRequest): Promise<{ url: string; listen: string }> => {
    const plan = planListen(request);
    let handle: Listener = (_request, response) => response.writeHead(503).end();
    const listener: Listener = (req, res) => handle(req, res);
    let server: Server;
    try {
      server = plan.tls ? createHttpsServer({ cert: plan.tls.cert, key: plan.tls.key }, listener) : createHttpServer(listener);
    } catch (error) {
      throw invalid(
        `The certificate or key could not be used (${(error as Error).message}); give PEM files: --cert cert.pem --key key.pem.`,
        error,
      );
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          invalid(
            error.code === 'EADDRINUSE'
              ? `${request.listen} is in use by another program; choose another port.`
              : `Could not listen on ${request.listen}: ${error.message}`,
            error,
          ),
        ),
      );
      server.listen(plan.port, plan.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const { url, hosts } = publicAddress(plan, port);
    handle = deps.wrap(getRequestListener(deps.app({ hosts, trustProxy: plan.trustProxy }).fetch));
    const listen = `${plan.host.includes(':') ? `[${plan.host}]` : plan.host}:${port}`;
    deps.opened({ url, listen, server });
    return { url, listen };
  };
  return {
    async open(request) {
      if (!opening) {
        if (!request)
          throw invalid(
            'The daemon does not listen for phones yet: say where, e.g. --listen 0.0.0.0:8443 --cert cert.pem --key key.pem (see docs/web.md).',
          );
        opening = start(request).catch((error: unknown) => {
          opening = undefined;
          throw error;
        });
        return (await opening).url;
      }
      const current = await opening;
      if (request && request.listen !== current.listen && !request.listen.endsWith(':0'))
        throw invalid(
          `The daemon already listens for phones on ${current.listen} (${current.url}); to change it, stop it first: mcpx daemon stop`,
        );
      return current.url;
    },
  };
}
