/**
 * Task records in a keyv store (the same database as the broker's questions), so any process that opens the
 * store can read a task and its result. Keys are `task:<id>`; records outlive their call by `retainMs`.
 */
import Keyv from 'keyv';
import { McpxError } from '../errors.js';
import type { TaskRecord } from './types.js';

export interface TaskStore {
  put(task: TaskRecord): Promise<void>;
  get(id: string): Promise<TaskRecord | undefined>;
  /** Every stored task still waiting for answers or running (for recovery after a daemon restart). */
  unfinished(): Promise<TaskRecord[]>;
}

export interface TaskStoreOptions {
  /** How long a finished task's record (and result) stays readable. Default one week. */
  retainMs?: number;
}

const DEFAULT_RETAIN_MS = 7 * 24 * 3600_000;
const PREFIX = 'task:';

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
      throw new McpxError('STORE_UNAVAILABLE', `The task store could not ${what}: ${(error as Error).message}. Check the store (SQLite file or Redis URL) is reachable.`, { cause: error });
    }
  };
  return {
    put: (task) => guard('save a task', async () => void (await kv.set(PREFIX + task.id, task, retainMs))),
    get: (id) => guard('read a task', async () => (await kv.get(PREFIX + id)) as TaskRecord | undefined),
    unfinished: () =>
      guard('list tasks', async () => {
        const out: TaskRecord[] = [];
        if (!kv.iterator) return out;
        for await (const [key, value] of kv.iterator(kv.namespace)) {
          if (typeof key !== 'string' || !key.startsWith(PREFIX)) continue;
          const task = value as TaskRecord | undefined;
          if (task && (task.state === 'running' || task.state === 'input-required')) out.push(task);
        }
        return out;
      }),
  };
}
