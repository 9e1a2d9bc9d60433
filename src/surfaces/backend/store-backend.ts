/**
 * The CLI's Backend when no daemon runs: the state store itself (`<stateDir>/mcpx.sqlite`, shared by every
 * process). Questions can be listed and answered, tasks read, the audit log followed; a call cannot be made here
 * and a task cannot be driven (that needs a daemon), and the commands say so.
 */
import { createBroker, type StoreBroker } from '../../broker/index.js';
import { openStoreFromEnv } from '../../broker/index.js';
import { elicitationOf } from '../../broker/index.js';
import type { BrokerEvent, ElicitRequest, Elicitation, RequestState } from '../../broker/index.js';
import { McpxError } from '../../errors.js';
import { canTakeOver, isProcessHolder, processHolderGone } from '../../tasks/handoff.js';
import { leaseMsFromEnv } from '../../tasks/leases.js';
import { openHostState } from '../../host/state.js';
import type { TaskRecord } from '../../tasks/types.js';
import { resolveSession } from '../../broker/index.js';
import { checkScope, checkTaskScope, type CallerScope } from '../../broker/index.js';
import type { Backend, Scope } from './backend.js';
import { currentUser } from './current-user.js';
import { stalledCall } from './stalled-call.js';

const STATES: RequestState[] = ['pending', 'answered', 'expired', 'abandoned'];

/** Opens the broker over the state store the daemon uses: Redis or Postgres when MCPX_STORE_URL names one, else the SQLite file. */
export async function openStoreBroker(env: Record<string, string | undefined>): Promise<StoreBroker> {
  const store = await openStoreFromEnv(env);
  return createBroker({ store, allowAnySession: true });
}

/** The broker does not close a store it was given: close both. */
export async function closeStoreBroker(broker: StoreBroker): Promise<void> {
  await broker.close();
  await broker.store.close();
}

export async function createStoreBackend(
  env: Record<string, string | undefined>,
  options: { pollMs?: number; cwd?: string; configPath?: string; session?: string } = {},
): Promise<Backend> {
  // A held legacy call's answer counts once its holder passed it on; a holder found dead first refuses it. The lease
  // table is only read to tell a live serve from a dead one.
  const state = openHostState({ store: await openStoreFromEnv(env), ownsStore: true, leaseMs: leaseMsFromEnv(env) });
  const { broker, tasks, leases, respondHeld } = state;
  // A caller naming no session is in this one, as a REST caller naming none is in the daemon's (§5.5, §6b).
  const defaultSession =
    options.session ??
    resolveSession(env, { cwd: options.cwd ?? process.cwd(), ...(options.configPath ? { configPath: options.configPath } : {}) })
      .session;
  const scoped = (scope: Scope = {}): CallerScope => ({ session: scope.session ?? defaultSession, all: scope.all === true });
  const pollMs = options.pollMs ?? 250;

  const toElicitation = (request: ElicitRequest): Elicitation => elicitationOf(request, Date.now());

  return {
    kind: 'store',

    async call() {
      throw new McpxError('DAEMON_UNAVAILABLE', 'no daemon is running to hold the call');
    },

    async list(filter) {
      const wanted =
        filter.state === undefined ? ['pending'] : filter.state === 'all' ? STATES : filter.state.split(',').map((s) => s.trim());
      const bad = wanted.filter((s) => !STATES.includes(s as RequestState));
      if (bad.length)
        throw new McpxError(
          'CONFIG_INVALID',
          `unknown state "${bad.join(', ')}": use ${STATES.join(', ')}, a comma list, or all`,
        );
      const session = filter.all ? filter.session : scoped(filter).session;
      const entries = await broker.pending({
        ...(filter.server ? { server: filter.server } : {}),
        ...(filter.tool ? { tool: filter.tool } : {}),
        ...(session ? { session } : {}),
        state: wanted as RequestState[],
      });
      return entries.map(toElicitation);
    },

    async get(id, scope) {
      const request = await broker.get(id);
      if (!request)
        throw new McpxError(
          'ELICITATION_NOT_FOUND',
          `No question ${id}: it never existed here or its record has expired. See what is waiting with: mcpx elicit list`,
        );
      checkScope(request, scoped(scope));
      const answer = await broker.lookup(id);
      return { elicitation: toElicitation(request), ...(answer ? { answer } : {}) };
    },

    async answer(id, answer, scope) {
      const caller = scoped(scope);
      const question = await broker.get(id);
      if (question && !caller.all) checkScope(question, caller);
      const user = currentUser();
      const session = scope.session;
      const { answer: stored, delivery } = await respondHeld({
        id,
        action: answer.action,
        by: 'cli',
        ...(user ? { user } : {}),
        ...('content' in answer && answer.content !== undefined ? { content: answer.content } : {}),
        ...(session ? { session } : {}),
      });
      if (delivery !== 'not-held') return { ...stored, delivery };
      const stalled = await stalledCall(question, tasks, leases, env);
      return stalled ? { ...stored, stalled } : stored;
    },

    async task(id, { waitSeconds, scope } = {}) {
      let task = await tasks.get(id);
      if (!task)
        throw new McpxError('TASK_NOT_FOUND', `No task ${id}: it never existed in this store or its record has expired.`);
      checkTaskScope(task, scoped(scope));
      const finished = (t: TaskRecord): boolean => t.state === 'complete' || t.state === 'failed';
      const until = Date.now() + (waitSeconds ?? 0) * 1000;
      // Held by a running mcpx serve (or another process resuming it): its record says when the call moves on.
      const heldByProcess = async (t: TaskRecord): Promise<boolean> =>
        isProcessHolder(t.holder) && !(await processHolderGone(t, leases()));
      while (!finished(task) && (await heldByProcess(task)) && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, until - Date.now())));
        task = (await tasks.get(id)) ?? task;
      }
      const resumable = waitSeconds !== undefined && waitSeconds > 0 && (await canTakeOver(task, leases()));
      if (resumable) {
        // Let go by the process that asked (an mcpx serve whose client went away), or its serve died: resumed here
        // with its answers, unless another process wins the claim (then its record is followed).
        const { resumeReleased } = await import('./resume-released.js');
        await resumeReleased(task, {
          store: broker.store,
          env,
          cwd: options.cwd ?? process.cwd(),
          ...(options.configPath ? { configPath: options.configPath } : {}),
          waitMs: Math.max(0, until - Date.now()),
        });
        task = (await tasks.get(id)) ?? task;
      }
      const { continuation: _continuation, holder: _holder, config: _config, ...visible } = task;
      // Resumed here or held by a serve, and still waiting: the caller asks again (or gives up at its deadline).
      if (waitSeconds && !finished(task) && !resumable && !(await heldByProcess(task))) {
        throw new McpxError(
          'DAEMON_UNAVAILABLE',
          `${id} is ${task.state} and no daemon is running to finish it; start one with: mcpx daemon start (it resumes calls it can)`,
          { data: { task: visible } },
        );
      }
      return visible;
    },

    events({ signal, kinds, onReady, scope }) {
      const caller = scoped(scope);
      return pollEvents(broker, signal, pollMs, kinds, caller.all ? scope?.session : caller.session, onReady);
    },

    close: () => state.close(),
  };
}

async function* pollEvents(
  broker: StoreBroker,
  signal: AbortSignal,
  pollMs: number,
  kinds: string[] | undefined,
  session: string | undefined,
  onReady?: () => void,
): AsyncIterable<BrokerEvent> {
  let since = Date.now();
  onReady?.();
  const seen = new Set<string>();
  while (!signal.aborted) {
    const events = await broker.audit({ since, ...(session !== undefined ? { session } : {}) });
    for (const event of events) {
      const key = `${event.at}|${event.kind}|${event.elicit ?? event.trace ?? ''}|${event.pid}`;
      if (seen.has(key)) continue;
      seen.add(key);
      since = Math.max(since, event.at);
      if (!kinds || kinds.includes(event.kind)) yield event;
    }
    await new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, pollMs);
      signal.addEventListener('abort', wake, { once: true });
    });
  }
}
