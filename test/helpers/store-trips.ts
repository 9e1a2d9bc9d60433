/**
 * Counts store round trips at the drivers, for the broker's cycle (test/broker/round-trips.test.ts and
 * `npm run bench -- trips`): on a Redis or Postgres socket a write after the last read (or the first write) starts
 * a round trip (writes pipelined together are one) and data that no write asked for is a push (pub/sub, NOTIFY);
 * on SQLite every statement run is one (a hop to sqlite3's thread pool; its checkpoint and poll named apart).
 * Counts go to the phase set last.
 * Installed once per process; the real drivers run unchanged underneath.
 */
import { createRequire } from 'node:module';
import { Socket } from 'node:net';

export interface TripCounter {
  /** The phase later counts go to; undefined stops counting. */
  phase: string | undefined;
  /** `<phase> <driver> round trip|push|statement` → how many. */
  readonly counts: Map<string, number>;
  /** What each push counted brought, as text, in order. */
  readonly pushes: string[];
  /** Main-thread µs spent inside sqlite3 calls (binding, queueing), while counting. */
  sqliteCallMicros: number;
  /** Names the sockets to count: 'redis', 'postgres', or undefined for others. */
  label: (socket: Socket) => string | undefined;
}

let installed: TripCounter | undefined;

export function tripCounter(): TripCounter {
  if (installed) return installed;
  const counter: TripCounter = {
    phase: undefined,
    counts: new Map(),
    pushes: [],
    sqliteCallMicros: 0,
    label: () => undefined,
  };
  const count = (what: string): void => {
    if (counter.phase === undefined) return;
    const key = `${counter.phase} ${what}`;
    counter.counts.set(key, (counter.counts.get(key) ?? 0) + 1);
  };
  const sockets = new WeakMap<Socket, { awaiting: boolean }>();
  const write = Socket.prototype.write;
  Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
    const name = counter.label(this);
    if (name) {
      let state = sockets.get(this);
      if (!state) {
        const made = (state = { awaiting: false });
        sockets.set(this, made);
        this.on('data', (data: Buffer) => {
          if (!made.awaiting && counter.phase !== undefined) {
            count(`${name} push`);
            counter.pushes.push(data.toString());
          }
          made.awaiting = false;
        });
      }
      if (!state.awaiting) count(`${name} round trip`);
      state.awaiting = true;
    }
    return write.apply(this, args);
  } as Socket['write'];
  const sqlite3 = createRequire(import.meta.resolve('@keyv/sqlite'))('sqlite3') as typeof import('sqlite3');
  for (const [proto, names] of [
    [sqlite3.Statement.prototype, ['all', 'run', 'get', 'each']],
    [sqlite3.Database.prototype, ['all', 'run', 'get', 'each', 'exec']],
  ] as const) {
    const methods = proto as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of names) {
      const original = methods[name]!;
      methods[name] = function (this: unknown, ...args: unknown[]) {
        if (counter.phase === undefined) return original.apply(this, args);
        // The store's background work is named apart: the WAL checkpoint, the cross-process poll, and a
        // connection's setup (the checkpointer opens its connection at its first checkpoint, whenever that falls).
        const sql = String(proto === sqlite3.Database.prototype ? args[0] : (this as { sql?: string }).sql);
        count(
          sql.startsWith('PRAGMA wal_checkpoint')
            ? 'sqlite checkpoint'
            : sql.startsWith('PRAGMA data_version')
              ? 'sqlite poll'
              : sql.startsWith('PRAGMA synchronous')
                ? 'sqlite setup'
                : 'sqlite statement',
        );
        const start = performance.now();
        try {
          return original.apply(this, args);
        } finally {
          counter.sqliteCallMicros += (performance.now() - start) * 1000;
        }
      };
    }
  }
  return (installed = counter);
}
