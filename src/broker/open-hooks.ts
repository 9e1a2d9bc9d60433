/** What `onOpen` hooks say of a question about to open, and the write that stores it with their rows. */
import type { Broker, BrokerEvent, BrokerStore, ElicitRequest, StoreRow } from './types.js';

export type OpenHook = Parameters<Broker['onOpen']>[0];

export interface HooksSaid {
  /** The request, re-made for the task a hook named (the first one named wins). */
  request: ElicitRequest;
  rows: StoreRow[];
  alongside: Array<Promise<unknown>>;
  /** Tells every hook that asked (`written`) of the question's write, or of the open's failure. */
  tell(write: () => Promise<unknown>): void;
}

/** No hooks: nothing to ask, and no await on the open's hot path. */
export const noHooksSaid = (request: ElicitRequest): HooksSaid => ({ request, rows: [], alongside: [], tell: () => {} });

/** Runs the hooks in turn; `withTask` re-makes the request for a task a hook named. */
export async function askOpenHooks(
  hooks: Iterable<OpenHook>,
  request: ElicitRequest,
  withTask: (task: string) => ElicitRequest,
  opening: { waits: boolean },
): Promise<HooksSaid> {
  const rows: StoreRow[] = [];
  const alongside: Array<Promise<unknown>> = [];
  const told: Array<(write: Promise<unknown>) => void> = [];
  const said: HooksSaid = {
    request,
    rows,
    alongside,
    tell: (write) => {
      if (told.length) told.forEach((written) => written(write()));
    },
  };
  try {
    for (const hook of hooks) {
      const result = await hook(said.request, opening);
      if (result?.rows) rows.push(...result.rows);
      if (result?.alongside) alongside.push(result.alongside);
      if (result?.written) told.push(result.written);
      if (result?.task !== undefined && said.request.task === undefined) said.request = withTask(result.task);
    }
  } catch (error) {
    said.tell(() => Promise.reject(error));
    throw error;
  }
  return said;
}

/**
 * The question with the rows its hooks gave: one write where the store can, else the rows first. Their own
 * writes run beside it; the question is reported only once all have landed.
 */
export function writeQuestion(
  store: BrokerStore,
  request: ElicitRequest,
  ttl: number,
  event: BrokerEvent,
  { rows, alongside }: Pick<HooksSaid, 'rows' | 'alongside'>,
): Promise<boolean> {
  // Nothing beside it (every open but a task's first question): the store's write itself, no promise layer more.
  if (rows.length === 0 && alongside.length === 0) return store.putQuestion(request, ttl, event);
  const put = async (): Promise<boolean> => {
    if (rows.length === 0) return store.putQuestion(request, ttl, event);
    if (store.putQuestionWith) return store.putQuestionWith(request, ttl, event, rows);
    await Promise.all(rows.map((row) => store.keyv.set(row.key, row.value, row.ttlMs)));
    return store.putQuestion(request, ttl, event);
  };
  return Promise.all([put(), ...alongside]).then(([written]) => written);
}
