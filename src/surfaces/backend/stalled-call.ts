/**
 * Whether anything drives the call an answered question belongs to, when the CLI answers from the store (no daemon
 * of its config runs). Without this, `mcpx elicit answer` said "the call that asked goes on" while the daemon that
 * held the call had died: the answer is kept, but the call only goes on once a daemon resumes it.
 */
import type { ElicitRequest } from '../../broker/index.js';
import { isProcessHolder, isModernRound, processHolderGone } from '../../tasks/handoff.js';
import type { Leases } from '../../tasks/leases.js';
import type { TaskStore } from '../../tasks/task-store.js';
import { daemonStateFile, isAlive, readDaemonState } from '../daemon/paths.js';
import type { StalledCall } from './backend.js';

export async function stalledCall(
  question: ElicitRequest | undefined,
  tasks: TaskStore,
  leases: () => Leases | undefined,
  env: Record<string, string | undefined>,
): Promise<StalledCall | undefined> {
  if (!question?.task) return undefined;
  const task = await tasks.get(question.task).catch(() => undefined);
  // Only a modern call waits for answers without a live connection; a legacy one is judged by its delivery.
  if (!isModernRound(task)) return undefined;
  if (task.holder === undefined) return { task: task.id, why: 'released' };
  if (isProcessHolder(task.holder))
    return (await processHolderGone(task, leases())) ? { task: task.id, why: 'released' } : undefined;
  // A daemon's call (holder: its config's fingerprint): it goes on while that daemon runs, and after it restarts.
  if (task.pid > 0 && isAlive(task.pid)) return undefined;
  const config = readDaemonState({ state: daemonStateFile(env, task.holder) })?.configPath;
  return { task: task.id, why: 'daemon-stopped', ...(task.pid > 0 ? { pid: task.pid } : {}), ...(config ? { config } : {}) };
}
