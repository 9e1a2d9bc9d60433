/**
 * Paged listing: `pending({ limit, cursor })`. Entries are ordered by (createdAt, id); a cursor names the last
 * entry of a page, so the next page starts after it even when questions come and go in between.
 */
import { McpxError } from '../errors.js';
import type { ElicitRequest } from './types.js';

/** The cursor that continues a listing after this entry (opaque to callers). */
export function cursorAfter(entry: Pick<ElicitRequest, 'createdAt' | 'id'>): string {
  return Buffer.from(`${entry.createdAt}:${entry.id}`).toString('base64url');
}

export function parseCursor(cursor: string): { createdAt: number; id: string } {
  const [time, id] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  const createdAt = Number(time);
  if (!id || !Number.isFinite(createdAt)) {
    throw new McpxError(
      'CONFIG_INVALID',
      `the cursor ${JSON.stringify(cursor)} is not one a listing gave out; start again without a cursor`,
      { data: { cursor } },
    );
  }
  return { createdAt, id };
}

/** One page of entries already in (createdAt, id) order. */
export function pageOf<T extends Pick<ElicitRequest, 'createdAt' | 'id'>>(sorted: T[], limit?: number, cursor?: string): T[] {
  let from = 0;
  if (cursor !== undefined) {
    const after = parseCursor(cursor);
    from = sorted.findIndex((e) => e.createdAt > after.createdAt || (e.createdAt === after.createdAt && e.id > after.id));
    if (from < 0) return [];
  }
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new McpxError('CONFIG_INVALID', `limit must be a whole number of at least 1, got ${String(limit)}`, {
      data: { limit },
    });
  return sorted.slice(from, limit === undefined ? undefined : from + limit);
}
