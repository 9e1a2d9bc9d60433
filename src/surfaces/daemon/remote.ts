/**
 * The daemon's listener for phones: the web inbox on an address the user chose (the config's `web` block, opened at
 * start, or `mcpx elicit web --pair --listen`), over TLS from the user's certificate and key, or plain HTTP behind the
 * reverse proxy the user names. Opened once; it answers paired devices only and closes with the daemon.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { WebListenConfig } from '../../config/index.js';
import { McpxError } from '../../errors.js';
import type { RemoteAccess } from '../http/web/gate.js';
import { planListen, publicAddress, readListenRequest, type ListenRequest } from '../http/web/listen.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

export interface RemoteListenerDeps {
  /** The app for the phones' listener (no bearer token; paired devices only, on these host names). */
  app(remote: RemoteAccess): { fetch: Parameters<typeof getRequestListener>[0] };
  /** Wraps the listener (the daemon counts its requests as activity). */
  wrap(listener: Listener): Listener;
  /** Told once it listens: the address devices open and the one it listens on. */
  opened(info: { url: string; listen: string; server: Server }): void;
  /** Told when the config's listener could not open (the rest of the daemon goes on). */
  failed(info: { listen: string; message: string }): void;
}

const invalid = (message: string, cause?: unknown): McpxError =>
  new McpxError('LISTEN_INVALID', message, cause === undefined ? {} : { cause });

/** The config's `web` block as the listener takes it: the certificate and key read now, from the paths it names. */
export function configuredRequest(web: WebListenConfig): ListenRequest {
  return readListenRequest(web, (which, file, error) =>
    invalid(`The config's web.${which} ${file} cannot be read (${error.message}).`, error),
  );
}

export interface RemoteListener {
  /** Opens the listener (or finds it open) and says the address devices open; no request: the one open. */
  open(request: ListenRequest | undefined): Promise<string>;
  /** Opens the config's listener at start; a failure goes to `failed` and is kept, so a pairing without --listen says why. */
  openConfigured(web: WebListenConfig): Promise<void>;
}

export function remoteListener(deps: RemoteListenerDeps): RemoteListener {
  let opening: Promise<{ url: string; listen: string }> | undefined;
  let configuredFailure: string | undefined;
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
  const listener: RemoteListener = {
    async openConfigured(web) {
      try {
        await listener.open(configuredRequest(web));
      } catch (error) {
        configuredFailure = (error as Error).message;
        deps.failed({ listen: web.listen, message: configuredFailure });
      }
    },
    async open(request) {
      if (!opening) {
        if (!request)
          throw invalid(
            configuredFailure
              ? `The config's "web" listener did not open: ${configuredFailure} Fix the config's "web" block and restart the daemon (mcpx daemon stop), or give --listen.`
              : 'The daemon does not listen for phones yet: say where, e.g. --listen 0.0.0.0:8443 --cert cert.pem --key key.pem, or in the config\'s "web" block (see docs/web.md).',
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
  return listener;
}
