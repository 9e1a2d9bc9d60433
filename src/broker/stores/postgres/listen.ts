/**
 * The Postgres store's waiters: one LISTEN connection per store, on which every committed answer (and row written
 * with a wake) is announced. NOTIFY is delivered on commit to every listening connection, and a listener that
 * reconnects wakes every waiter to re-read once, so no wake is lost: nothing here polls.
 */
import type { Client, Notification } from 'pg';
import type { StoredAnswer } from '../../types.js';
import { ident } from './schema.js';
import { listenSql } from './presence.js';
import { Watchers, type Watcher } from '../watchers.js';

export class AnswerListener {
  private readonly watchers = new Watchers();
  private readonly rowWatchers = new Watchers();
  private listener: Promise<Client | undefined> | undefined;
  /** The connection while it listens, and how many statements run on it (presence.ts). */
  private live: Client | undefined;
  private running = 0;
  private closed = false;

  constructor(
    private readonly channel: string,
    private readonly ready: Promise<void>,
    private readonly connectListener: () => Promise<Client>,
  ) {}

  watch(id: string, onAnswer: Watcher): () => void {
    const unwatch = this.watchers.add(id, onAnswer);
    void this.listen();
    return unwatch;
  }

  watchRow(key: string, onWritten: () => void): () => void {
    const unwatch = this.rowWatchers.add(key, onWritten);
    void this.listen();
    return unwatch;
  }

  /** Tells the watchers of a row written with a wake. */
  wakeRow(key: string): void {
    this.rowWatchers.wake(key);
  }

  /**
   * Runs a statement on the LISTEN connection when it listens and runs nothing else, else undefined (use the pool):
   * a claim run here NOTIFYs only if another connection listens.
   */
  run(name: string, text: string, values: unknown[]): Promise<Array<Record<string, unknown>>> | undefined {
    const client = this.live;
    if (!client || this.running > 0) return undefined;
    this.running++;
    return client.query({ name, text, values }).then(
      (result) => {
        this.running--;
        return result.rows as Array<Record<string, unknown>>;
      },
      (error: unknown) => {
        this.running--;
        throw error;
      },
    );
  }

  private get waiting(): boolean {
    return this.watchers.size > 0 || this.rowWatchers.size > 0;
  }

  /** Tells the waiters on a question (its answer, or nothing: re-read). */
  wake(id: string, answer?: StoredAnswer): void {
    this.watchers.wake(id, answer);
  }

  /** One LISTEN connection per store; when it drops, the next watch (or the reconnect) listens again. */
  private listen(): Promise<Client | undefined> {
    this.listener ??= (async () => {
      if (this.closed) return undefined;
      await this.ready;
      const client = await this.connectListener();
      const lost = (): void => {
        this.listener = undefined;
        if (this.live === client) this.live = undefined;
        client.removeAllListeners('notification');
        if (this.closed) return;
        // Reconnect after a pause while anyone waits; an answer committed meanwhile is found by the re-read.
        setTimeout(() => this.waiting && void this.listen(), 100).unref?.();
      };
      client.on('error', lost);
      client.on('end', lost);
      // The backend this connection talks to: a notification carries the pid of the backend that sent it.
      const backend = ((await client.query('SELECT pg_backend_pid() AS pid')).rows[0] as { pid: number }).pid;
      client.on('notification', (message: Notification) => {
        // Sent by a claim run on this very connection (run()): the store woke its waiters when the claim returned.
        if (!message.payload || message.processId === backend) return;
        const parsed = JSON.parse(message.payload) as StoredAnswer | { row: string };
        if ('row' in parsed) this.rowWatchers.wake(parsed.row);
        else this.wake(parsed.id, parsed.action ? parsed : undefined);
      });
      // One transaction: LISTEN and be present, after any claim that found nobody present has committed.
      await client.query(listenSql(`LISTEN ${ident(this.channel)}`, this.channel));
      if (this.closed) {
        await client.end().catch(() => undefined);
        return undefined;
      }
      this.live = client;
      // Anything answered or written while we were connecting: let every waiter re-read once.
      for (const id of this.watchers.ids()) this.wake(id);
      for (const key of this.rowWatchers.ids()) this.rowWatchers.wake(key);
      return client;
    })().catch(() => {
      this.listener = undefined;
      if (!this.closed) setTimeout(() => this.waiting && void this.listen(), 250).unref?.();
      return undefined;
    });
    return this.listener;
  }

  /** Stops listening: the waiters are dropped and the connection ended. */
  async close(): Promise<void> {
    this.closed = true;
    this.live = undefined;
    this.watchers.clear();
    this.rowWatchers.clear();
    const client = await this.listener?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }
}
