/**
 * Several hosts sharing questions: keyv over @keyv/redis. The atomic steps are Lua scripts around `SET NX PX`
 * (the answer row is the claim; the same script drops the pending-index entry and publishes the answer), and
 * waiters in other processes wake through pub/sub, with a slow poll as the fallback for a missed message.
 */
import { Keyv } from 'keyv';
import { McpxError } from '../../../errors.js';
import type { BrokerEvent, BrokerStore, ClaimOptions, ElicitRequest, PutOptions, StoredAnswer } from '../../types.js';
import { decodeRowsSync, encodeRow, encodeRowSync, encodeRowWithJson, keys, rawKey } from '../rows.js';
import { onePerKeyv } from '../per-keyv.js';
import { CLAIM_ANSWER, PUT_AND_WAKE, PUT_QUESTION, TRIM_LOG, UPDATE_QUESTION, scriptSha } from './scripts.js';
import { ClaimListeners, Watchers, type Watcher } from '../watchers.js';

/** The slice of the node-redis client we use. */
interface RedisClient {
  isOpen: boolean;
  isReady: boolean;
  sendCommand(args: string[]): Promise<unknown>;
  duplicate(): RedisClient;
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  close?(): Promise<unknown>;
  destroy?(): unknown;
}

export interface RedisStoreOptions {
  /** Fallback poll for a waiter whose pub/sub message was lost (ms): 250. */
  fallbackPollMs?: number;
  /** Give up connecting after this long (ms): 3 000. */
  connectTimeoutMs?: number;
  namespace?: string;
}

export function isRedisAdapter(store: unknown): boolean {
  const s = store as { getClient?: unknown; createKeyPrefix?: unknown } | undefined;
  return typeof s?.getClient === 'function' && typeof s.createKeyPrefix === 'function';
}

/**
 * A log entry carries its own keep-until, so the list can be trimmed by retention. Spliced onto the event's JSON
 * (the same text as stringifying `{ ...event, _expires }`, in half the time: the spread was the cost).
 */
const logEntry = (event: BrokerEvent, ttlMs: number): string =>
  `${JSON.stringify(event).slice(0, -1)},"_expires":${Date.now() + ttlMs}}`;

class RedisStore implements BrokerStore {
  readonly kind = 'redis' as const;
  private readonly watchers = new Watchers();
  private readonly rowWatchers = new Watchers();
  private readonly claims = new ClaimListeners();
  private subscriber: RedisClient | undefined;
  private subscribing: Promise<void> | undefined;
  /**
   * 1 while Redis surely counts our subscriber among the channel's: from its SUBSCRIBE's reply until it first
   * drops. After a drop it stays 0 (the claim publishes whenever anyone listens), so a resubscription still in
   * flight is never taken for one that landed.
   */
  private ownSubscription = 0;
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private trimmedAt = 0;
  private readonly pendingKey: string;
  private readonly logKey: string;
  private readonly channel: string;

  constructor(
    readonly keyv: Keyv,
    private readonly fallbackPollMs: number,
  ) {
    this.pendingKey = rawKey(keyv, 'pending');
    this.logKey = rawKey(keyv, 'log');
    this.channel = rawKey(keyv, 'answered');
  }

  private client(): Promise<RedisClient> {
    return (this.keyv.store as { getClient(): Promise<RedisClient> }).getClient();
  }

  /**
   * Runs a script by its SHA1 (its text crosses the wire only when this Redis has not seen it: NOSCRIPT). Not
   * async, and an open client taken as is: each promise layer between the call and the write is one more turn of
   * the microtask queue on the cycle's critical path.
   */
  private eval(script: string, keyList: string[], args: Array<string | number>): Promise<unknown> {
    const command = ['EVALSHA', scriptSha(script), String(keyList.length), ...keyList];
    for (const arg of args) command.push(String(arg));
    const send = (client: RedisClient): Promise<unknown> =>
      client.sendCommand(command).catch((error: unknown) => {
        if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
        return client.sendCommand(['EVAL', script, ...command.slice(2)]);
      });
    const { client } = this.keyv.store as { client: RedisClient };
    return client.isOpen ? send(client) : this.client().then(send);
  }

  async putQuestion(request: ElicitRequest, ttlMs: number, event: BrokerEvent): Promise<boolean> {
    const { row, json, tail } = encodeRowSync(this.keyv, request, ttlMs) ?? (await encodeRowWithJson(this.keyv, request, ttlMs));
    const won = await this.eval(
      PUT_QUESTION,
      [rawKey(this.keyv, keys.question(request.id)), this.pendingKey, this.logKey],
      [row, ttlMs, request.id, tail === undefined ? json : '', logEntry(event, ttlMs), tail ?? ''],
    );
    return Number(won) === 1;
  }

  async updateQuestion(request: ElicitRequest, ttlMs: number): Promise<boolean> {
    const row = await encodeRow(this.keyv, request, ttlMs);
    const written = await this.eval(
      UPDATE_QUESTION,
      [rawKey(this.keyv, keys.question(request.id)), this.pendingKey, rawKey(this.keyv, keys.answer(request.id))],
      [row, ttlMs, request.id, JSON.stringify(request)],
    );
    return Number(written) === 1;
  }

  async putIfAbsent(key: string, value: unknown, ttlMs: number, options: PutOptions = {}): Promise<boolean> {
    const row = await encodeRow(this.keyv, value, ttlMs);
    const raw = rawKey(this.keyv, key);
    if (!options.wake) {
      const client = await this.client();
      return (await client.sendCommand(['SET', raw, row, 'NX', 'PX', String(Math.round(ttlMs))])) === 'OK';
    }
    // Written and announced in one script, on the channel answers use: `{"row": key}` tells row watchers.
    const won = await this.eval(PUT_AND_WAKE, [raw], [row, Math.round(ttlMs), this.channel, JSON.stringify({ row: key })]);
    if (Number(won) !== 1) return false;
    this.rowWatchers.wake(key);
    return true;
  }

  getQuestion(id: string): Promise<ElicitRequest | undefined> {
    return this.keyv.get<ElicitRequest>(keys.question(id));
  }

  async getEntry(id: string): Promise<{ request?: ElicitRequest | undefined; answer?: StoredAnswer | undefined }> {
    const client = await this.client();
    const [question, answer] = (await client.sendCommand([
      'MGET',
      rawKey(this.keyv, keys.question(id)),
      rawKey(this.keyv, keys.answer(id)),
    ])) as Array<string | null>;
    return {
      request: decodeRowsSync<ElicitRequest>(this.keyv, [question])[0],
      answer: decodeRowsSync<StoredAnswer>(this.keyv, [answer])[0],
    };
  }

  async claimAnswer(answer: StoredAnswer, ttlMs: number, event: BrokerEvent, options: ClaimOptions = {}): Promise<boolean> {
    const { row, json, tail } = encodeRowSync(this.keyv, answer, ttlMs) ?? (await encodeRowWithJson(this.keyv, answer, ttlMs));
    const won = await this.eval(
      CLAIM_ANSWER,
      [rawKey(this.keyv, keys.answer(answer.id)), this.pendingKey, this.logKey, rawKey(this.keyv, keys.question(answer.id))],
      [
        row,
        ttlMs,
        answer.id,
        this.channel,
        tail === undefined ? json : '',
        logEntry(event, ttlMs),
        options.open ? '1' : '0',
        tail ?? '',
        this.ownSubscription,
      ],
    );
    if (Number(won) !== 1) return false;
    this.claims.tell(event);
    this.watchers.wake(answer.id, answer);
    if (Date.now() - this.trimmedAt >= 1_000) await this.trimLog();
    return true;
  }

  getAnswer(id: string): Promise<StoredAnswer | undefined> {
    return this.keyv.get<StoredAnswer>(keys.answer(id));
  }

  async getAnswers(ids: string[]): Promise<Array<StoredAnswer | undefined>> {
    if (ids.length === 0) return [];
    const client = await this.client();
    const raws = (await client.sendCommand(['MGET', ...ids.map((id) => rawKey(this.keyv, keys.answer(id)))])) as Array<
      string | null
    >;
    return raws.map((raw) => decodeRowsSync<StoredAnswer>(this.keyv, [raw])[0]);
  }

  async listUnanswered(): Promise<ElicitRequest[]> {
    const client = await this.client();
    const values = (await client.sendCommand(['HVALS', this.pendingKey])) as string[];
    return values.map((value) => JSON.parse(value) as ElicitRequest);
  }

  async listQuestions(): Promise<ElicitRequest[]> {
    const client = await this.client();
    const pattern = `${rawKey(this.keyv, 'q:')}*`;
    const found: ElicitRequest[] = [];
    let cursor = '0';
    do {
      const [next, batch] = (await client.sendCommand(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [string, string[]];
      cursor = next;
      if (batch.length)
        found.push(...decodeRowsSync<ElicitRequest>(this.keyv, (await client.sendCommand(['MGET', ...batch])) as unknown[]));
    } while (cursor !== '0');
    return found;
  }

  async appendEvent(event: BrokerEvent, ttlMs: number): Promise<void> {
    const client = await this.client();
    await client.sendCommand(['RPUSH', this.logKey, logEntry(event, ttlMs)]);
    // At most once a second per process, after the write: retention is housekeeping, not part of the append.
    if (Date.now() - this.trimmedAt >= 1_000) await this.trimLog();
  }

  async readEvents(since = 0): Promise<BrokerEvent[]> {
    await this.trimLog();
    const client = await this.client();
    const lines = (await client.sendCommand(['LRANGE', this.logKey, '0', '-1'])) as string[];
    const now = Date.now();
    const events: BrokerEvent[] = [];
    for (const line of lines) {
      const { _expires: expires, ...event } = JSON.parse(line) as BrokerEvent & { _expires?: number };
      if (event.at >= since && (expires === undefined || expires >= now)) events.push(event);
    }
    return events;
  }

  private async trimLog(): Promise<void> {
    this.trimmedAt = Date.now();
    await this.eval(TRIM_LOG, [this.logKey], [this.trimmedAt]);
  }

  watch(id: string, onAnswer: Watcher): () => void {
    const unwatch = this.watchers.add(id, onAnswer);
    void this.subscribe();
    this.schedulePoll();
    return unwatch;
  }

  watchRow(key: string, onWritten: () => void): () => void {
    const unwatch = this.rowWatchers.add(key, onWritten);
    void this.subscribe();
    this.schedulePoll();
    return unwatch;
  }

  onClaimed(listener: (event: BrokerEvent) => void): () => void {
    return this.claims.add(listener);
  }

  private subscribe(): Promise<void> {
    this.subscribing ??= (async () => {
      const client = await this.client();
      // Closed meanwhile (a watch that ended at once, as a CLI's answer): a subscriber made now would be left open.
      if (this.closed) return;
      const subscriber = client.duplicate();
      let dropped = false;
      const drop = (): void => {
        dropped = true;
        this.ownSubscription = 0;
      };
      subscriber.on('error', drop); // reconnects on its own; the fallback poll covers the gap
      subscriber.on('end', drop);
      subscriber.on('reconnecting', drop);
      this.subscriber = subscriber;
      await subscriber.connect();
      if (this.closed) {
        if (subscriber.isOpen) subscriber.destroy?.();
        return;
      }
      await subscriber.subscribe(this.channel, (message) => {
        const parsed = JSON.parse(message) as StoredAnswer | { row: string };
        if ('row' in parsed) this.rowWatchers.wake(parsed.row);
        else this.watchers.wake(parsed.id, parsed);
      });
      if (!dropped && !this.closed) this.ownSubscription = 1;
      // Anything answered or written while we were subscribing: let every waiter re-read once.
      for (const id of this.watchers.ids()) this.watchers.wake(id);
      for (const key of this.rowWatchers.ids()) this.rowWatchers.wake(key);
    })().catch(() => {
      this.subscribing = undefined;
    });
    return this.subscribing;
  }

  /**
   * Pub/sub delivers at most once: a message published while the subscriber reconnects is gone. So while anyone
   * waits, the watched answers and rows are re-read slowly as well.
   */
  private schedulePoll(): void {
    if (this.pollTimer || this.closed) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      if ((this.watchers.size === 0 && this.rowWatchers.size === 0) || this.closed) return;
      const ids = this.watchers.ids();
      const rows = this.rowWatchers.ids();
      Promise.all([
        this.getAnswers(ids).then((answers) => answers.forEach((answer, i) => answer && this.watchers.wake(ids[i]!, answer))),
        rows.length
          ? this.keyv
              .getMany(rows)
              .then((found) => found.forEach((row, i) => row !== undefined && this.rowWatchers.wake(rows[i]!)))
          : undefined,
      ])
        .catch(() => undefined)
        .finally(() => this.schedulePoll());
    }, this.fallbackPollMs);
    this.pollTimer.unref?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.ownSubscription = 0;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.watchers.clear();
    this.rowWatchers.clear();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    // A subscriber still connecting: node-redis closed now would still open its socket and then refuse to destroy
    // it (the client counts as closed), leaving the process alive. Let the attempt land and be destroyed by
    // subscribe(), but never wait long on a Redis that is down (then a close stops its retries).
    if (subscriber?.isOpen && !subscriber.isReady) await settledWithin(this.subscribing, SUBSCRIBER_CONNECT_WAIT_MS);
    if (subscriber?.isOpen)
      await Promise.resolve(subscriber.isReady ? subscriber.close?.() : subscriber.destroy?.()).catch(() =>
        subscriber.destroy?.(),
      );
    const store = this.keyv.store as { client: RedisClient };
    if (store.client.isOpen) await this.keyv.disconnect();
  }
}

/** How long a close waits for a subscriber's connect attempt: the client's connect timeout. */
const SUBSCRIBER_CONNECT_WAIT_MS = 3_000;

function settledWithin(promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref?.();
  });
  return Promise.race([
    Promise.resolve(promise).then(
      () => undefined,
      () => undefined,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

const wrapOnce = onePerKeyv((keyv: Keyv, options: RedisStoreOptions) => new RedisStore(keyv, options.fallbackPollMs ?? 250));

/** Wraps a host's keyv over @keyv/redis (one wrapper per keyv instance). */
export function wrapRedisKeyv(keyv: Keyv, options: RedisStoreOptions = {}): BrokerStore {
  return wrapOnce(keyv, options);
}

/** Connects to Redis at `url` (redis://host:port); fails with STORE_UNAVAILABLE when it cannot. */
export async function openRedisStore(url: string, options: RedisStoreOptions = {}): Promise<BrokerStore> {
  const { createKeyv } = await import('@keyv/redis');
  const keyv = createKeyv(
    {
      url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: options.connectTimeoutMs ?? 3_000,
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000),
      },
    },
    { namespace: options.namespace ?? 'mcpx', throwOnErrors: true, connectionTimeout: options.connectTimeoutMs ?? 3_000 },
  );
  keyv.on('error', () => {
    // Reported by the failing operation itself (throwOnErrors); this only keeps the emitter quiet.
  });
  try {
    await (keyv.store as { getClient(): Promise<unknown> }).getClient();
  } catch (error) {
    throw new McpxError(
      'STORE_UNAVAILABLE',
      `cannot reach the Redis store at ${redact(url)}: ${(error as Error).message}. Check that it is running and the URL is right.`,
      {
        cause: error,
        data: { store: 'redis', url: redact(url) },
      },
    );
  }
  return wrapRedisKeyv(keyv, options);
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
