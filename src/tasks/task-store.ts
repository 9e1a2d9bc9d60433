/**
 * Task records in a keyv store (the same database as the broker's questions), so any process that opens the
 * store can read a task and its result. Keys are `task:<id>`; records outlive their call by `retainMs`.
 * Each holder's unfinished tasks are also listed in one row of its own (`tasks-live:<holder>`), so recovery after
 * a restart reads that row and those tasks instead of every row in the store. Only the process holding the calls
 * writes its row (holders are per process: a config's one daemon, `inline-<pid>`, `serve-<pid>-…`).
 */
import Keyv from 'keyv';
import { toBrokerStore } from '../broker/index.js';
import { McpxError } from '../errors.js';
import type { StoreRow } from '../broker/index.js';
import type { TaskRecord } from './types.js';

export interface TaskStore {
  put(task: TaskRecord): Promise<void>;
  get(id: string): Promise<TaskRecord | undefined>;
  /**
   * Every stored task still waiting for answers or running (for recovery after a daemon restart). With a holder,
   * only that holder's, read from its live-task row (a store written before that row existed is scanned once).
   */
  unfinished(holder?: string): Promise<TaskRecord[]>;
  /** Another holder's unfinished tasks, read afresh from its live-task row (a daemon taking over a dead one's calls). */
  liveOf(holder: string): Promise<TaskRecord[]>;
  /** Rewrites another holder's live-task row: a takeover leaves in it only the tasks it did not take. */
  setLive(holder: string, ids: string[]): Promise<void>;
  /**
   * Takes the call over from the state `task` shows (let go, or held by a process that is gone): a put-if-absent
   * in the store on that state, so of many processes taking one call over exactly one wins (true). The winner then
   * writes the record with its own holder; the others leave the call to it. `by` names the claimer (a takeover's
   * instance) in the claim; `after` claims the state anew after that claimer (judged dead before it adopted it).
   */
  claim(task: TaskRecord, by?: string, after?: string): Promise<boolean>;
  /**
   * The claimer named in the claim on the state `task` shows, or in the claim made after `after` (undefined:
   * unclaimed, or claimed without a name).
   */
  claimant(task: TaskRecord, after?: string): Promise<string | undefined>;
  /**
   * `put` split for a task stored with its first question, when this store's keyv is the broker's (else undefined):
   * rows for the question's write (the record, and its holder's live row when no other write of that row is
   * pending), and either the live-row update started now (`live`) or `landed`, to be told of the question's write.
   */
  withQuestion?(task: TaskRecord, keyv: Keyv): WithQuestion | undefined;
}

export interface WithQuestion {
  rows: StoreRow[];
  live?: Promise<void>;
  /** Called with the question's write (which carries the live row): the next live-row write waits for it. */
  landed?: (write: Promise<unknown>) => void;
}

export interface TaskStoreOptions {
  /** How long a finished task's record (and result) stays readable. Default one week. */
  retainMs?: number;
}

const DEFAULT_RETAIN_MS = 7 * 24 * 3600_000;
const PREFIX = 'task:';
const LIVE = 'tasks-live:';
/** Set once every holder's live row exists (after the one scan of a store written before the rows). */
const INDEXED = 'tasks-live';

const CLAIM = 'task-claim:';
/** Long past any race on one state of a record: a claim row only has to outlive the reads that saw that state. */
const CLAIM_MS = 24 * 3600_000;
/**
 * The state a take-over starts from: a hand-off (unique token), or the holder that is gone and its last write; with
 * `after`, the claim made anew on that state after that claimer died (one key per dead claimer, so a chain of them
 * is claimed link by link).
 */
const claimKey = (task: TaskRecord, after?: string): string =>
  CLAIM +
  task.id +
  (task.holder === undefined ? `:free:${task.handoff ?? task.updatedAt}` : `:${task.holder}:${task.updatedAt}`) +
  (after === undefined ? '' : `:after:${after}`);

const isUnfinished = (task: TaskRecord | undefined): boolean =>
  task !== undefined && (task.state === 'running' || task.state === 'input-required');

/**
 * Wraps a keyv instance: the broker store's own (`BrokerStore.keyv`, keys here never collide with the broker's),
 * or a fresh one. Whoever opened the keyv closes it.
 */
export function createTaskStore(kv: Keyv = new Keyv(), options: TaskStoreOptions = {}): TaskStore {
  const retainMs = options.retainMs ?? DEFAULT_RETAIN_MS;
  const guard = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw new McpxError(
        'STORE_UNAVAILABLE',
        `The task store could not ${what}: ${(error as Error).message}. Check the store (SQLite file or Redis URL) is reachable.`,
        { cause: error },
      );
    }
  };

  // This process's view of each holder's live row: loaded once, then written only when membership changes.
  const live = new Map<string, Promise<Set<string>>>();
  /** The same sets, once loaded (read synchronously by withQuestion). */
  const loaded = new Map<string, Set<string>>();
  let writes: Promise<unknown> = Promise.resolve();
  /** Live-row writes queued or in flight. */
  let pending = 0;
  const enqueue = (step: Promise<unknown>): void => {
    pending++;
    writes = step.catch(() => undefined).finally(() => pending--);
  };
  const liveSet = (holder: string): Promise<Set<string>> => {
    let set = live.get(holder);
    if (!set) {
      set = (async () => {
        const [ids, indexed] = (await kv.getMany([LIVE + holder, INDEXED])) as [string[] | undefined, boolean | undefined];
        if (ids) return new Set(ids);
        // No row: a holder with no live task, once the store keeps rows; else a store from before the rows,
        // scanned once to write every holder's row.
        if (indexed) return new Set<string>();
        const byHolder = new Map<string, string[]>();
        for (const task of await scan())
          if (task.holder !== undefined) byHolder.set(task.holder, [...(byHolder.get(task.holder) ?? []), task.id]);
        for (const [other, list] of byHolder) if (other !== holder) await kv.set(LIVE + other, list);
        await kv.set(LIVE + holder, byHolder.get(holder) ?? []);
        await kv.set(INDEXED, true);
        return new Set(byHolder.get(holder));
      })();
      set.then(
        (loadedSet) => live.get(holder) === set && loaded.set(holder, loadedSet),
        () => live.delete(holder),
      );
      live.set(holder, set);
    }
    return set;
  };
  /**
   * Adds or drops the task in its holder's row; one write at a time per process, so none is lost. A finished task
   * is dropped here at once and from the row with the next addition: every reader of the row skips a finished
   * task anyway, so a call's completion costs one write (its record), not two. With `record`, an addition is
   * written in one atomic write with it (keyv's setMany: one statement on Postgres, MULTI on Redis).
   */
  const track = (task: TaskRecord, record?: { key: string; value: TaskRecord; ttl: number }): Promise<void> => {
    const holder = task.holder;
    if (holder === undefined) return Promise.resolve();
    const step = writes.then(async () => {
      const set = await liveSet(holder);
      const wanted = isUnfinished(task);
      if (set.has(task.id) === wanted) return void (record && (await kv.set(record.key, record.value, record.ttl)));
      if (!wanted) return void set.delete(task.id);
      const row = { key: LIVE + holder, value: [...set, task.id] };
      await (record ? kv.setMany([record, row]) : kv.set(row.key, row.value));
      // Once written: a write that failed leaves the set as the row is, so the next put adds it again.
      set.add(task.id);
    });
    enqueue(step);
    return step;
  };

  async function scan(): Promise<TaskRecord[]> {
    const out: TaskRecord[] = [];
    if (!kv.iterator) return out;
    for await (const [key, value] of kv.iterator(kv.namespace)) {
      if (typeof key !== 'string' || !key.startsWith(PREFIX)) continue;
      if (isUnfinished(value as TaskRecord | undefined)) out.push(value as TaskRecord);
    }
    return out;
  }

  return {
    // A task joining its holder's row (a new call, or one taken over from a dead holder) is written with the row in
    // one write: a record naming a holder whose row lacks it would be in nobody's row (a row's readers skip a task
    // whose record names another holder), and a survivor sweeping its old holder would pass it by. Already in the
    // row, or finished (it leaves the row lazily, see track), the record is written alone, beside any row write.
    put: (task) =>
      guard('save a task', async () => {
        const record = { key: PREFIX + task.id, value: task, ttl: retainMs };
        if (task.holder !== undefined && isUnfinished(task) && !loaded.get(task.holder)?.has(task.id)) return track(task, record);
        await Promise.all([kv.set(record.key, task, retainMs), track(task)]);
      }),
    withQuestion(task, keyv) {
      if (keyv !== kv) return undefined;
      const rows: StoreRow[] = [{ key: PREFIX + task.id, value: task, ttlMs: retainMs }];
      const set = task.holder === undefined ? undefined : loaded.get(task.holder);
      // The row rides in the question's write only when no other write of it can land after and undo it.
      if (!set || pending > 0 || !isUnfinished(task) || set.has(task.id))
        return { rows, live: guard('save a task', () => track(task)) };
      set.add(task.id);
      rows.push({ key: LIVE + task.holder!, value: [...set] });
      let landed!: () => void;
      enqueue(new Promise<void>((resolve) => (landed = resolve)));
      return { rows, landed: (write) => void write.then(landed, landed) };
    },
    get: (id) => guard('read a task', async () => (await kv.get(PREFIX + id)) as TaskRecord | undefined),
    unfinished: (holder) =>
      guard('list tasks', async () => {
        if (holder === undefined) return scan();
        const set = await liveSet(holder);
        const ids = [...set];
        if (ids.length === 0) return [];
        const tasks = (await kv.getMany(ids.map((id) => PREFIX + id))) as Array<TaskRecord | undefined>;
        const found = tasks.filter((task): task is TaskRecord => isUnfinished(task) && task!.holder === holder);
        // Finished (or gone) ones the row still names leave it with its next write.
        const live = new Set(found.map((task) => task.id));
        for (const id of ids) if (!live.has(id)) set.delete(id);
        return found;
      }),
    liveOf: (holder) =>
      guard('list tasks', async () => {
        const ids = ((await kv.get(LIVE + holder)) as string[] | undefined) ?? [];
        if (ids.length === 0) return [];
        const tasks = (await kv.getMany(ids.map((id) => PREFIX + id))) as Array<TaskRecord | undefined>;
        return tasks.filter((task): task is TaskRecord => isUnfinished(task) && task!.holder === holder);
      }),
    claim: (task, by, after) =>
      guard('claim a task', () =>
        toBrokerStore(kv).putIfAbsent(
          claimKey(task, after),
          { pid: process.pid, at: Date.now(), ...(by === undefined ? {} : { by }) },
          CLAIM_MS,
        ),
      ),
    claimant: (task, after) =>
      guard('read a claim', async () => ((await kv.get(claimKey(task, after))) as { by?: string } | undefined)?.by),
    setLive: (holder, ids) =>
      guard('save a task', async () => {
        live.delete(holder);
        loaded.delete(holder);
        await kv.set(LIVE + holder, ids);
      }),
  };
}
