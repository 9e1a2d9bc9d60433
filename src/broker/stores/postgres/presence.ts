/**
 * Who listens for answers, so a claim NOTIFYs only when some other process could be waiting: Postgres delivered
 * every answer's NOTIFY to the answering process's own LISTEN connection too, though that process wakes its own
 * waiters itself. One advisory lock per channel: no table, no polling, and a claim never waits for it.
 */
import { createHash } from 'node:crypto';

/*
 * How the lock says who listens:
 * - every store's LISTEN connection holds it shared for as long as it lives (a session lock, gone with the
 *   connection), taken in the transaction that makes its LISTEN effective; its waiters re-read after that;
 * - a claim tries it exclusive, held until it commits (`pg_try_advisory_xact_lock`), and NOTIFYs only when the
 *   try fails. A lock its own session holds never conflicts, so a claim run on this process's own LISTEN connection
 *   gets it unless another connection listens; on any other connection ours counts as a listener too.
 * A listener arriving while a claim holds the lock waits for that commit before it listens, then re-reads; one
 * arriving before the claim's try makes the try fail, and the claim NOTIFYs. Either way no answer goes unseen.
 */

/** The lock's first key: 'mcpx' as a positive int4. */
const LISTENING = 0x6d637078;

/** The channel's second key, a positive int4. */
export function presenceKey(channel: string): number {
  return createHash('sha1').update(channel).digest().readUInt32BE(0) & 0x7fffffff;
}

/** The claim's condition for its `pg_notify`: somebody other than this session listens (or is arriving). */
export function othersListenSql(keyParam: string): string {
  return `NOT pg_try_advisory_xact_lock(${LISTENING}, ${keyParam}::int)`;
}

/** Run by a listener as one transaction: LISTEN and be present (waiting out a claim that holds the lock). */
export function listenSql(listen: string, channel: string): string {
  return `${listen}; SELECT pg_advisory_lock_shared(${LISTENING}, ${presenceKey(channel)})`;
}
