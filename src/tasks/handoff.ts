/**
 * Handing a call over between processes on one store. A modern call waiting at a round needs no live connection:
 * its continuation is in the task record. A process that stops (an `mcpx serve` whose client went away) lets go of
 * such calls (no holder); whoever asks for one's result next (another serve, `mcpx task result`) adopts it and
 * resumes it with the answers given meanwhile.
 */
import type { TaskStore } from './task-store.js';
import type { TaskRecord } from './types.js';

/** Whether nobody drives the call and anybody may resume it from its continuation. */
export function isReleased(task: TaskRecord | undefined): task is TaskRecord {
  return (
    task !== undefined &&
    task.state === 'input-required' &&
    task.era === 'modern' &&
    task.continuation !== undefined &&
    task.holder === undefined
  );
}

/**
 * Lets go of the modern calls `holder` left waiting at a round (after its runner closed): each keeps its
 * continuation, loses its holder, and names the config its servers come from. Returns the ids let go.
 */
export async function releaseHeld(
  store: TaskStore,
  ids: Iterable<string>,
  holder: string,
  config: string | undefined,
): Promise<string[]> {
  const released: string[] = [];
  for (const id of ids) {
    const task = await store.get(id).catch(() => undefined);
    if (!task || task.holder !== holder || task.state !== 'input-required' || task.era !== 'modern' || !task.continuation)
      continue;
    delete task.holder;
    if (config !== undefined) task.config = config;
    task.updatedAt = Date.now();
    await store.put(task).catch(() => undefined);
    released.push(id);
  }
  return released;
}
