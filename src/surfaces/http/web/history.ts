/**
 * The web inbox's history view, read from the audit trail: per server and tool, how questions ended, and how long
 * people took (`answeredAfterMs`) against the deadline they had, so a person can see whether a TTL fits.
 */
import type { BrokerEvent } from '../../../broker/index.js';

export interface HistoryRow {
  server: string;
  tool: string;
  asked: number;
  accepted: number;
  declined: number;
  cancelled: number;
  expired: number;
  abandoned: number;
  /** Still open at the time of the summary (or their end is past the window's log). */
  open: number;
  /** The TTL most of its questions had (ms), when their opening is in the window. */
  ttlMs?: number;
  /** Each answer by a person or a surface (not expiry): how long after asking, and the TTL it had. */
  answers: Array<{ afterMs: number; ttlMs?: number; action: 'accept' | 'decline' | 'cancel' }>;
  p50Ms?: number;
  p90Ms?: number;
}

export interface History {
  since: number;
  until: number;
  rows: HistoryRow[];
}

const COUNTED = new Set<BrokerEvent['kind']>(['elicit.open', 'elicit.answered', 'elicit.expired', 'elicit.abandoned']);

interface Asked {
  server: string;
  tool: string;
  ttlMs?: number;
}

/** Sums the audit events of a window into one row per server and tool, busiest first. */
export function summarizeHistory(events: BrokerEvent[], window: { since: number; until: number }): History {
  const asked = new Map<string, Asked>();
  const rows = new Map<string, HistoryRow>();
  const ended = new Set<string>();
  const rowOf = (server = '?', tool = '?'): HistoryRow => {
    const key = `${server}\u0000${tool}`;
    let row = rows.get(key);
    if (!row) {
      row = { server, tool, asked: 0, accepted: 0, declined: 0, cancelled: 0, expired: 0, abandoned: 0, open: 0, answers: [] };
      rows.set(key, row);
    }
    return row;
  };
  const ttls = new Map<HistoryRow, number[]>();
  for (const event of events) {
    const id = event.elicit;
    if (!id || !COUNTED.has(event.kind)) continue;
    const known = asked.get(id);
    const row = rowOf(event.server ?? known?.server, event.tool ?? known?.tool);
    if (event.kind === 'elicit.open') {
      const expiresAt = event.data?.expiresAt;
      const ttlMs = typeof expiresAt === 'number' ? expiresAt - event.at : undefined;
      asked.set(id, { server: row.server, tool: row.tool, ...(ttlMs !== undefined ? { ttlMs } : {}) });
      row.asked += 1;
      if (ttlMs !== undefined) ttls.set(row, [...(ttls.get(row) ?? []), ttlMs]);
      continue;
    }
    if (ended.has(id)) continue;
    if (event.kind === 'elicit.answered' && event.action) {
      ended.add(id);
      if (event.action === 'accept') row.accepted += 1;
      else if (event.action === 'decline') row.declined += 1;
      else row.cancelled += 1;
      if (typeof event.answeredAfterMs === 'number') {
        row.answers.push({
          afterMs: event.answeredAfterMs,
          action: event.action,
          ...(known?.ttlMs !== undefined ? { ttlMs: known.ttlMs } : {}),
        });
      }
    } else if (event.kind === 'elicit.expired') {
      ended.add(id);
      row.expired += 1;
    } else if (event.kind === 'elicit.abandoned') {
      ended.add(id);
      row.abandoned += 1;
    }
  }
  for (const [id, question] of asked) if (!ended.has(id)) rowOf(question.server, question.tool).open += 1;
  for (const row of rows.values()) {
    const rowTtls = ttls.get(row);
    if (rowTtls?.length) row.ttlMs = percentile(rowTtls, 0.5);
    const after = row.answers.map((a) => a.afterMs);
    if (after.length) {
      row.p50Ms = percentile(after, 0.5);
      row.p90Ms = percentile(after, 0.9);
    }
  }
  const list = [...rows.values()].sort(
    (a, b) => b.asked - a.asked || a.server.localeCompare(b.server) || a.tool.localeCompare(b.tool),
  );
  return { since: window.since, until: window.until, rows: list };
}

/** The nearest-rank percentile of a non-empty list. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
