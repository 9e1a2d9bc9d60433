/**
 * Devices paired with the web inbox (`mcpx elicit web --pair`): each holds its own credential, a random secret of
 * which the state store keeps only a digest, with its name, user agent and last-seen time, and loses it on
 * `--revoke` (its next request is refused, its open event streams end). The secret lives in the device's cookie.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type Keyv from 'keyv';
import type { WebSession } from './auth.js';

export interface PairedDevice {
  id: string;
  name: string;
  userAgent: string;
  pairedAt: number;
  lastSeenAt: number;
}

interface StoredDevice extends PairedDevice {
  /** sha256 of the secret, hex: the store never holds the credential itself. */
  digest: string;
}

export interface DeviceRegistry {
  /** A new device and the cookie value that is its credential (shown once, to the device). */
  pair(name: string, userAgent: string): Promise<{ device: PairedDevice; credential: string }>;
  /** The device a cookie value names, as a web session (its CSRF token derived from its secret); touches last-seen. */
  verify(
    credential: string | undefined,
  ): Promise<{ device: PairedDevice; session: WebSession; revoked: AbortSignal } | undefined>;
  list(): Promise<PairedDevice[]>;
  /** false when no device has this id. */
  revoke(id: string): Promise<boolean>;
}

const KEY = 'web-devices';
/** Last-seen is written at most this often per device, so a busy page does not write on every request. */
const SEEN_EVERY_MS = 60_000;
/** A paired device's cookie lasts as long as browsers keep one (400 days); revoking ends it sooner. */
export const DEVICE_COOKIE_MAX_AGE_S = 400 * 24 * 60 * 60;
const CREDENTIAL = /^(dev-[0-9a-f]{12})\.([\w-]{43})$/;

const digestOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export function createDeviceRegistry(kv: Keyv, clock: () => number = Date.now): DeviceRegistry {
  // One writer at a time: every change reads the whole list and writes it back.
  let queue: Promise<unknown> = Promise.resolve();
  const change = <T>(edit: (devices: StoredDevice[]) => { devices: StoredDevice[]; result: T }): Promise<T> => {
    const run = queue.then(async () => {
      const { devices, result } = edit(await read());
      await kv.set(KEY, devices);
      return result;
    });
    queue = run.catch(() => undefined);
    return run;
  };
  const read = async (): Promise<StoredDevice[]> => ((await kv.get(KEY)) as StoredDevice[] | undefined) ?? [];
  // Open event streams of a device end when it is revoked (in this daemon).
  const revocations = new Map<string, AbortController>();
  const signalOf = (id: string): AbortSignal => {
    let controller = revocations.get(id);
    if (!controller) revocations.set(id, (controller = new AbortController()));
    return controller.signal;
  };
  const shown = ({ digest: _digest, ...device }: StoredDevice): PairedDevice => device;
  return {
    async pair(name, userAgent) {
      const secret = randomBytes(32).toString('base64url');
      const now = clock();
      const stored: StoredDevice = {
        id: `dev-${randomBytes(6).toString('hex')}`,
        name: name.slice(0, 80),
        userAgent: userAgent.slice(0, 200),
        pairedAt: now,
        lastSeenAt: now,
        digest: digestOf(secret),
      };
      await change((devices) => ({ devices: [...devices, stored], result: undefined }));
      return { device: shown(stored), credential: `${stored.id}.${secret}` };
    },
    async verify(credential) {
      const match = CREDENTIAL.exec(credential ?? '');
      if (!match) return undefined;
      const [, id, secret] = match as unknown as [string, string, string];
      const found = (await read()).find((d) => d.id === id);
      if (!found || !timingSafeEqual(Buffer.from(found.digest, 'hex'), Buffer.from(digestOf(secret), 'hex'))) return undefined;
      const now = clock();
      if (now - found.lastSeenAt >= SEEN_EVERY_MS) {
        void change((devices) => ({
          devices: devices.map((d) => (d.id === id ? { ...d, lastSeenAt: now } : d)),
          result: undefined,
        })).catch(() => undefined);
      }
      const csrf = createHmac('sha256', secret).update('csrf').digest('base64url');
      return {
        device: shown({ ...found, lastSeenAt: now }),
        session: { id, csrf, expiresAt: now + DEVICE_COOKIE_MAX_AGE_S * 1000 },
        revoked: signalOf(id),
      };
    },
    async list() {
      return (await read()).map(shown);
    },
    async revoke(id) {
      const removed = await change((devices) => ({
        devices: devices.filter((d) => d.id !== id),
        result: devices.some((d) => d.id === id),
      }));
      revocations.get(id)?.abort();
      revocations.delete(id);
      return removed;
    },
  };
}
