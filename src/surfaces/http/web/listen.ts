/**
 * The address the web inbox listens on for phones (`mcpx elicit web --listen`): checked before anything listens.
 * Off loopback it needs TLS (a certificate and key the user gives) or the user's word that a reverse proxy in
 * front terminates TLS (`--behind-proxy`, with the public `--url`); only then are X-Forwarded-* headers trusted.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { McpxError } from '../../../errors.js';

/** What `mcpx elicit web` sends the daemon (the PEM texts read from the user's files). */
export interface ListenRequest {
  listen: string;
  cert?: string;
  key?: string;
  behindProxy?: boolean;
  /** The address the device opens; default: https://<the listen host, or this machine's LAN address>:<port>. */
  url?: string;
}

/**
 * A request whose `cert` and `key` name files (flags, the config's `web` block), with the PEM texts read from them;
 * `unreadable` makes the error for a file that cannot be read, in the words of where it was named.
 */
export function readListenRequest(
  named: { [K in keyof ListenRequest]: ListenRequest[K] | undefined } & { listen: string },
  unreadable: (which: 'cert' | 'key', file: string, error: Error) => Error,
): ListenRequest {
  const read = (which: 'cert' | 'key', file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw unreadable(which, file, error as Error);
    }
  };
  return {
    listen: named.listen,
    ...(named.cert !== undefined ? { cert: read('cert', named.cert) } : {}),
    ...(named.key !== undefined ? { key: read('key', named.key) } : {}),
    ...(named.behindProxy ? { behindProxy: true } : {}),
    ...(named.url !== undefined ? { url: named.url } : {}),
  };
}

export interface ListenPlan {
  host: string;
  port: number;
  tls?: { cert: string; key: string };
  trustProxy: boolean;
  url?: URL;
}

const invalid = (message: string): McpxError => new McpxError('LISTEN_INVALID', message);
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** `host:port`, `[v6]:port` or a bare port (all addresses). */
function parseAddress(spec: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:\s]+):)?(\d{1,5})$/.exec(spec.trim());
  const port = Number(match?.[2]);
  if (!match || !(port >= 0 && port <= 65535))
    throw invalid(
      `--listen takes host:port (e.g. 0.0.0.0:8443, 192.168.1.20:8443, 127.0.0.1:8080), not ${JSON.stringify(spec)}.`,
    );
  return { host: (match[1] ?? '0.0.0.0').replace(/^\[|\]$/g, ''), port };
}

export function planListen(request: ListenRequest): ListenPlan {
  const { host, port } = parseAddress(request.listen);
  if ((request.cert === undefined) !== (request.key === undefined))
    throw invalid('TLS needs both --cert <file> and --key <file>.');
  const tls = request.cert !== undefined && request.key !== undefined ? { cert: request.cert, key: request.key } : undefined;
  const trustProxy = request.behindProxy === true;
  if (tls && trustProxy)
    throw invalid('Choose one: --cert/--key (mcpx serves TLS itself) or --behind-proxy (a reverse proxy in front serves it).');
  if (!tls && !trustProxy && !isLoopbackHost(host)) {
    throw invalid(
      `Refusing to serve the inbox on ${request.listen} without TLS: anyone on the network could read the traffic. ` +
        'Give a certificate and key (--cert cert.pem --key key.pem), or run it behind a reverse proxy that serves HTTPS ' +
        '(--listen 127.0.0.1:8080 --behind-proxy --url https://inbox.example.com); see docs/web.md.',
    );
  }
  let url: URL | undefined;
  if (request.url !== undefined) {
    try {
      url = new URL(request.url);
    } catch {
      throw invalid(
        `--url takes the address the device opens, like https://inbox.example.com, not ${JSON.stringify(request.url)}.`,
      );
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
      throw invalid(`--url must be an https:// address (the device reaches the inbox over TLS), not ${request.url}.`);
  } else if (trustProxy) {
    throw invalid('--behind-proxy needs --url, the https:// address the proxy serves the inbox at.');
  }
  return { host, port, ...(tls ? { tls } : {}), trustProxy, ...(url ? { url } : {}) };
}

/** The first IPv4 address of this machine that is not loopback: what a phone on the same network opens. */
function lanAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces()))
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  return undefined;
}

/** The address devices open, once the port is known, and the host names the listener answers to. */
export function publicAddress(plan: ListenPlan, port: number): { url: string; hosts: string[] } {
  const shownHost = WILDCARDS.has(plan.host) ? (lanAddress() ?? '127.0.0.1') : plan.host;
  const url =
    plan.url ?? new URL(`${plan.tls ? 'https' : 'http'}://${isIP(shownHost) === 6 ? `[${shownHost}]` : shownHost}:${port}`);
  const hosts = new Set([url.hostname]);
  if (!WILDCARDS.has(plan.host)) hosts.add(isIP(plan.host) === 6 ? `[${plan.host}]` : plan.host);
  return { url: url.origin, hosts: [...hosts] };
}
