/**
 * The embedding default: keyv over a Map in this process. Its atomic step is check-and-set in one synchronous
 * tick. The default keyv keeps rows as objects (no serializer: nothing leaves the process), and reads hand out
 * copies so no caller can change a stored question or answer; a host's keyv with a serializer works too.
 */
import { Keyv } from 'keyv';
import type { BrokerEvent, BrokerStore, ClaimOptions, ElicitRequest, PutOptions, StoredAnswer } from '../types.js';
import { decodeRow, encodeRow, keys, rawKey } from './rows.js';
import { onePerKeyv } from './per-keyv.js';
import { ClaimListeners, Watchers, type Watcher } from './watchers.js';

class MemoryStore implements BrokerStore {
  readonly kind = 'memory' as const;
  private readonly map: Map<string, unknown>;
  // The pending index and the log are in-process structures: a Map store lives and dies with this process anyway.
  private readonly unanswered = new Map<string, ElicitRequest>();
  private events: Array<{ event: BrokerEvent; expires: number }> = [];
  private trimmedAt = 0;
  private readonly watchers = new Watchers();
  private readonly rowWatchers = new Watchers();
  private readonly claims = new ClaimListeners();

  constructor(readonly keyv: Keyv) {
    this.map = keyv.store as Map<string, unknown>;
  }

  private async read<T>(key: string): Promise<T | undefined> {
    return decodeRow<T>(this.keyv, this.map.get(rawKey(this.keyv, key)));
  }

  async putQuestion(request: ElicitRequest, ttlMs: number, event: BrokerEvent): Promise<boolean> {
    const row = await encodeRow(this.keyv, request, ttlMs);
    const key = rawKey(this.keyv, keys.question(request.id));
    if (isLive(this.map.get(key))) return false;
    this.map.set(key, row);
    this.unanswered.set(request.id, request);
    this.log(event, ttlMs);
    return true;
  }

  async updateQuestion(request: ElicitRequest, ttlMs: number): Promise<boolean> {
    const row = await encodeRow(this.keyv, request, ttlMs);
    // No await from the check to the set: a claim cannot land in between.
    if (isLive(this.map.get(rawKey(this.keyv, keys.answer(request.id))))) return false;
    this.map.set(rawKey(this.keyv, keys.question(request.id)), row);
    if (this.unanswered.has(request.id)) this.unanswered.set(request.id, request);
    return true;
  }

  async getQuestion(id: string): Promise<ElicitRequest | undefined> {
    return copyRequest(await this.read<ElicitRequest>(keys.question(id)));
  }

  async getEntry(id: string): Promise<{ request?: ElicitRequest | undefined; answer?: StoredAnswer | undefined }> {
    return {
      request: copyRequest(await this.read<ElicitRequest>(keys.question(id))),
      answer: copyAnswer(await this.read<StoredAnswer>(keys.answer(id))),
    };
  }

  async claimAnswer(answer: StoredAnswer, ttlMs: number, event: BrokerEvent, options: ClaimOptions = {}): Promise<boolean> {
    const row = await encodeRow(this.keyv, answer, ttlMs);
    const key = rawKey(this.keyv, keys.answer(answer.id));
    // From here to the set there is no await: nothing else in this process can interleave.
    if (isLive(this.map.get(key))) return false;
    if (options.open && !isOpen(this.map.get(rawKey(this.keyv, keys.question(answer.id))))) return false;
    this.map.set(key, row);
    this.unanswered.delete(answer.id);
    this.log(event, ttlMs);
    this.claims.tell(event);
    const watchers = this.watchers.of(answer.id);
    if (watchers.length) queueMicrotask(() => watchers.forEach((watch) => watch(copyAnswer(answer))));
    return true;
  }

  async putIfAbsent(key: string, value: unknown, ttlMs: number, options: PutOptions = {}): Promise<boolean> {
    const row = await encodeRow(this.keyv, value, ttlMs);
    const raw = rawKey(this.keyv, key);
    // No await from the check to the set, as in claimAnswer.
    if (isLive(this.map.get(raw))) return false;
    this.map.set(raw, row);
    if (options.wake) queueMicrotask(() => this.rowWatchers.wake(key));
    return true;
  }

  async getAnswer(id: string): Promise<StoredAnswer | undefined> {
    return copyAnswer(await this.read<StoredAnswer>(keys.answer(id)));
  }

  async getAnswers(ids: string[]): Promise<Array<StoredAnswer | undefined>> {
    return Promise.all(ids.map((id) => this.getAnswer(id)));
  }

  async listUnanswered(): Promise<ElicitRequest[]> {
    return [...this.unanswered.values()];
  }

  async listQuestions(): Promise<ElicitRequest[]> {
    const prefix = rawKey(this.keyv, 'q:');
    const found: ElicitRequest[] = [];
    for (const [key, raw] of this.map) {
      if (!key.startsWith(prefix)) continue;
      const request = await decodeRow<ElicitRequest>(this.keyv, raw);
      if (request) found.push(request);
    }
    return found;
  }

  async appendEvent(event: BrokerEvent, ttlMs: number): Promise<void> {
    this.log(event, ttlMs);
  }

  async readEvents(since = 0): Promise<BrokerEvent[]> {
    this.trim(true);
    return this.events.filter(({ event }) => event.at >= since).map(({ event }) => event);
  }

  private log(event: BrokerEvent, ttlMs: number): void {
    this.events.push({ event, expires: Date.now() + ttlMs });
    this.trim(false);
  }

  /**
   * Retention: drops log entries, rows and index entries past their keep-until (retainMs after the deadline),
   * so a long-lived process does not grow without bound. At most once a second unless asked.
   */
  private trim(now: boolean): void {
    const time = Date.now();
    if (!now && time - this.trimmedAt < 1_000) return;
    this.trimmedAt = time;
    this.events = this.events.filter((entry) => entry.expires >= time);
    const prefix = rawKey(this.keyv, '');
    for (const [key, raw] of this.map) if (key.startsWith(prefix) && !isLive(raw)) this.map.delete(key);
    for (const id of this.unanswered.keys()) if (!this.map.has(rawKey(this.keyv, keys.question(id)))) this.unanswered.delete(id);
  }

  watch(id: string, onAnswer: Watcher): () => void {
    return this.watchers.add(id, onAnswer);
  }

  watchRow(key: string, onWritten: () => void): () => void {
    return this.rowWatchers.add(key, onWritten);
  }

  onClaimed(listener: (event: BrokerEvent) => void): () => void {
    return this.claims.add(listener);
  }

  async close(): Promise<void> {
    this.watchers.clear();
    this.rowWatchers.clear();
  }
}

function copyRequest(request: ElicitRequest | undefined): ElicitRequest | undefined {
  return request && { ...request };
}

function copyAnswer(answer: StoredAnswer | undefined): StoredAnswer | undefined {
  return answer && (answer.content ? { ...answer, content: { ...answer.content } } : { ...answer });
}

// Synchronous on purpose (the atomic step must not await). A row is an object, or keyv's JSON string.
function isLive(raw: unknown): boolean {
  if (raw === undefined || raw === null) return false;
  const { expires } = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { expires?: number | null };
  return typeof expires !== 'number' || expires >= Date.now();
}

/** A live question row that is not abandoned (synchronous, like isLive). */
function isOpen(raw: unknown): boolean {
  if (!isLive(raw)) return false;
  const { value } = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { value?: { state?: string } };
  return value !== undefined && value.state !== 'abandoned';
}

const wrapOnce = onePerKeyv((keyv: Keyv) => new MemoryStore(keyv));

/** A keyv over a Map that keeps rows as objects (no JSON round trip); keyv's setters take undefined, its options do not. */
function unserializedKeyv(): Keyv {
  const keyv = new Keyv({ store: new Map(), namespace: 'mcpx', throwOnErrors: true });
  keyv.serialize = undefined;
  keyv.deserialize = undefined;
  return keyv;
}

/** A memory store over a fresh keyv Map, or over a host's keyv whose store is a Map (one wrapper per keyv). */
export function openMemoryStore(keyv?: Keyv): BrokerStore {
  return wrapOnce(keyv ?? unserializedKeyv());
}
