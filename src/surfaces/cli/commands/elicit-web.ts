/**
 * `mcpx elicit web [--open] [--json]`: a sign-in link to the daemon's web inbox. The link carries a one-time code
 * in its fragment (never sent to a server, so it reaches no log and no Referer header); the page trades it for a
 * session cookie. A browser reaches the daemon on its loopback port: the daemon opens one (a free port) when it
 * has none yet. `--pair` makes a one-time link that pairs another device (a phone) over the address `--listen` (or
 * the config's `web` block) opens; `--devices` lists paired devices and `--revoke <id>` unpairs one.
 */
import { isMcpxError } from '../../../errors.js';
import { ensureDaemon, type DaemonClient } from '../../daemon/client.js';
import { findConfigPath } from '../../../config/find.js';
import type { PairedDevice } from '../../http/web/devices.js';
import { readListenRequest, type ListenRequest } from '../../http/web/listen.js';
import { UsageError } from '../args.js';
import { EXIT, type CliIO } from '../io.js';
import { openUrl } from '../open-url.js';
import { qrText } from '../qr.js';
import { duration } from '../render.js';
import { sanitizeLine } from '../sanitize.js';

export interface ElicitWebOptions {
  config?: string;
  open: boolean;
  json: boolean;
  pair?: { name?: string; listen?: string; cert?: string; key?: string; behindProxy?: boolean; url?: string };
  devices?: boolean;
  revoke?: string;
}

type Fail = (message: string) => number;

const PAIR_FLAGS = ['name', 'listen', 'cert', 'key', 'url', 'behind-proxy'] as const;

/** `--pair`, `--devices` and `--revoke` as options, refusing flags that belong to another of them. */
export function webFlags(
  flags: Record<string, string | boolean | undefined>,
): Pick<ElicitWebOptions, 'pair' | 'devices' | 'revoke'> {
  const chosen = [flags.pair && '--pair', flags.devices && '--devices', flags.revoke !== undefined && '--revoke'].filter(Boolean);
  if (chosen.length > 1) throw new UsageError(`choose one of ${chosen.join(', ')}`);
  const stray = PAIR_FLAGS.find((flag) => flags[flag] !== undefined);
  if (!flags.pair && stray) throw new UsageError(`--${stray} goes with --pair`);
  const text = (name: string): string | undefined => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
  if (flags.devices) return { devices: true };
  if (typeof flags.revoke === 'string') return { revoke: flags.revoke };
  if (!flags.pair) return {};
  const pair: NonNullable<ElicitWebOptions['pair']> = {};
  for (const key of ['name', 'listen', 'cert', 'key', 'url'] as const) {
    const value = text(key);
    if (value !== undefined) pair[key] = value;
  }
  if (flags['behind-proxy'] === true) pair.behindProxy = true;
  return { pair };
}

const INLINE =
  'the daemon runs inside this command (MCPX_DAEMON=inline), where no browser can reach it; unset MCPX_DAEMON and run this again.';

const isoSecond = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

export async function elicitWeb(io: CliIO, options: ElicitWebOptions): Promise<number> {
  const fail: Fail = (message) => {
    io.stderr.write(`mcpx elicit web: ${message}\n`);
    return EXIT.FAILURE;
  };
  let listen: ListenRequest | undefined;
  try {
    listen = options.pair ? listenRequest(options.pair) : undefined;
  } catch (error) {
    return fail((error as Error).message);
  }
  let client;
  try {
    const configPath = findConfigPath(options.config, io.cwd, io.env);
    client = await ensureDaemon(io.env, configPath, { cwd: io.cwd, inlineFallback: false });
  } catch (error) {
    return fail(isMcpxError(error) ? error.message : (error as Error).message);
  }
  try {
    if (!options.devices && options.revoke === undefined && !options.pair) return await signInLink(client, io, options, fail);
    if (client.inline) return fail(INLINE);
    if (options.devices) return await listDevices(client, io, options.json, fail);
    if (options.revoke !== undefined) return await revokeDevice(client, io, options.revoke, options.json, fail);
    return await pairLink(client, io, { ...options, name: options.pair?.name, listen }, fail);
  } finally {
    await client.close();
  }
}

/** The listener's address as the daemon takes it: the certificate and key read here, where the user named them. */
function listenRequest(pair: NonNullable<ElicitWebOptions['pair']>): ListenRequest | undefined {
  if (pair.listen === undefined) {
    if (pair.cert || pair.key || pair.behindProxy || pair.url)
      throw new Error('--cert, --key, --behind-proxy and --url go with --listen <host:port>.');
    return undefined;
  }
  return readListenRequest(
    { ...pair, listen: pair.listen },
    (which, file, error) => new Error(`cannot read --${which} ${file}: ${error.message}`, { cause: error }),
  );
}

async function refusal(response: { status: number; json(): Promise<unknown> }, what: string): Promise<string> {
  const body = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  return (
    body?.error?.message ??
    `the daemon refused ${what} (${response.status}); is it older than this mcpx? Restart it: mcpx daemon stop`
  );
}

async function signInLink(client: DaemonClient, io: CliIO, options: ElicitWebOptions, fail: Fail): Promise<number> {
  const response = await client.fetch('/ui/code', { method: 'POST' });
  if (!response.ok)
    return fail(
      `the daemon refused a sign-in code (${response.status}); is it older than this mcpx? Restart it: mcpx daemon stop`,
    );
  const reply = (await response.json()) as { path: string; expiresAt: number; port?: number };
  const { path, expiresAt } = reply;
  const port = reply.port ?? client.state?.port;
  if (port === undefined) return fail(INLINE);
  const url = `http://127.0.0.1:${port}${path}`;
  if (options.json) io.stdout.write(`${JSON.stringify({ url, expiresAt })}\n`);
  else
    io.stdout.write(
      `Open the inbox in a browser on this machine (the link signs it in once, until ${isoSecond(expiresAt)}):\n\n  ${url}\n\n`,
    );
  if (options.open && !(await openUrl(url, io.env)))
    io.stderr.write('mcpx elicit web: could not open a browser; open the link above yourself.\n');
  return EXIT.OK;
}

async function pairLink(
  client: DaemonClient,
  io: CliIO,
  options: { json: boolean; open: boolean; name?: string | undefined; listen: ListenRequest | undefined },
  fail: Fail,
): Promise<number> {
  const response = await client.fetch('/ui/code', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      pair: { ...(options.name ? { name: options.name } : {}), ...(options.listen ? { listen: options.listen } : {}) },
    }),
  });
  if (!response.ok) return fail(await refusal(response, 'a pairing link'));
  const { url, expiresAt } = (await response.json()) as { url: string; expiresAt: number };
  if (options.json) io.stdout.write(`${JSON.stringify({ url, expiresAt })}\n`);
  else
    io.stdout.write(
      `Open this link on the device to pair it (it works once, until ${isoSecond(expiresAt)}):\n\n  ${url}\n\n` +
        // On a terminal, the same link as a QR code for the phone's camera.
        (io.isTTY ? `${qrText(url)}\n\n` : '') +
        'The device gets its own credential: mcpx elicit web --devices lists paired devices, --revoke <id> unpairs one.\n',
    );
  if (options.open && !(await openUrl(url, io.env)))
    io.stderr.write('mcpx elicit web: could not open a browser; open the link above yourself.\n');
  return EXIT.OK;
}

async function listDevices(client: DaemonClient, io: CliIO, json: boolean, fail: Fail): Promise<number> {
  const response = await client.fetch('/ui/devices');
  if (!response.ok) return fail(await refusal(response, 'the device list'));
  const { devices } = (await response.json()) as { devices: PairedDevice[] };
  if (json) {
    io.stdout.write(`${JSON.stringify({ devices }, null, 2)}\n`);
    return EXIT.OK;
  }
  if (!devices.length) {
    io.stdout.write(
      'No devices are paired. Pair one with: mcpx elicit web --pair --listen <host:port> --cert <file> --key <file>\n',
    );
    return EXIT.OK;
  }
  const now = Date.now();
  for (const d of devices)
    io.stdout.write(
      `${d.id}  ${sanitizeLine(d.name, 30)}  paired ${isoSecond(d.pairedAt)}  last seen ${duration(Math.max(0, now - d.lastSeenAt))} ago  ${sanitizeLine(d.userAgent, 60)}\n`,
    );
  return EXIT.OK;
}

async function revokeDevice(client: DaemonClient, io: CliIO, id: string, json: boolean, fail: Fail): Promise<number> {
  const response = await client.fetch(`/ui/devices/${encodeURIComponent(id)}`, { method: 'DELETE' });
  if (!response.ok) return fail(await refusal(response, 'to revoke the device'));
  if (json) io.stdout.write(`${JSON.stringify({ revoked: id })}\n`);
  else io.stderr.write(`mcpx: revoked ${id}; its next request is refused.\n`);
  return EXIT.OK;
}
