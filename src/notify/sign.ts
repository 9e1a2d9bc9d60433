/**
 * The webhook signature: HMAC-SHA256 of the exact body with the sink's secret, hex, in `X-Mcpx-Signature-256:
 * sha256=<hex>` (GitHub's form, so receivers' verifiers fit). The body carries `sentAt`, for refusing replays.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-mcpx-signature-256';

export function signatureOf(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What a receiver does: true when `header` is the body's signature under `secret` (compared in constant time). */
export function verifySignature(body: string, secret: string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signatureOf(body, secret));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
