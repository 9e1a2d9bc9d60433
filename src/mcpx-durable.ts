/**
 * createMcpx({ store }): calls whose questions live where the host says. A question nobody answers here (the
 * policy, then `onElicit`) is opened in the store under its `elc-` id, and the call is a task (`tsk-`) recorded
 * beside it, so any process on the same store can list and answer it and read the call's result. A legacy call
 * stays open in the process that asked; a modern call is resumed from its stored continuation by whichever process
 * asks for its result once the asking one has let it go.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Keyv } from 'keyv';
import { createBroker, type StoreBroker } from './broker/index.js';
import { questionOf } from './broker/index.js';
import { resolveSession, type SessionBinding } from './broker/index.js';
import { toBrokerStore } from './broker/index.js';
import { openStoreUrl } from './broker/index.js';
import type { AnsweredBy, BrokerStore, ElicitRequest, Elicitation, PendingFilter, StoredAnswer } from './broker/index.js';
import type { CallOutcome } from './client/index.js';
import { createElicitationPipeline } from './pipeline/pipeline.js';
import { McpxError, type McpxErrorCode } from './errors.js';
import { loadConfig } from './config/load.js';
import { parsePolicy, type Policy, type PolicyMode } from './policy/index.js';
import { createTaskRunner, type TaskRunner } from './tasks/runner.js';
import { createTaskStore } from './tasks/task-store.js';
import { canTakeOver, isModernRound, keepLease, newInstance, processHolderGone, releaseHeld } from './tasks/handoff.js';
import { heldResponder } from './tasks/delivery.js';
import { leaseMsFromEnv, openLeases } from './tasks/leases.js';
import type { TaskRecord, TaskResult, TaskStep } from './tasks/types.js';
import type { Answer, Question } from './types.js';
import type { Mcpx, McpxOptions } from './mcpx.js';

/** Where questions live: a store of ours (openSqliteStore, openRedisStore, ...), a keyv instance over one, or a store URL. */
export type StoreOption = BrokerStore | Keyv | string;

/** The `elicit` block of a config (`{ mode, ttl, audience, rules }`), or a Policy from `parsePolicy`. */
export type PolicyOption = Policy | { mode?: PolicyMode; ttl?: number | string; audience?: 'person' | 'any'; rules?: unknown[] };

export interface ResultOptions {
  /** Give up waiting after this long and return the call as it stands (input-required). Default: wait until it ends. */
  timeoutMs?: number;
  /** Resume a modern call whose asking process is gone without letting it go (it crashed): only when it surely is gone. */
  adopt?: boolean;
  signal?: AbortSignal;
}

/** An mcpx instance whose questions and calls live in a store: what `createMcpx({ store })` resolves with. */
export interface DurableMcpx extends Mcpx {
  readonly broker: StoreBroker;
  /** Answers a question (`elc-` id) asked by any process on the store. Throws ANSWER_INVALID, ELICITATION_ALREADY_ANSWERED, ... */
  answer(questionId: string, answer: Answer, options?: { by?: AnsweredBy }): Promise<StoredAnswer>;
  /** Questions waiting (default) or in the given states, from every process on the store. */
  pending(filter?: PendingFilter): Promise<Elicitation[]>;
  /** A call's record (`tsk-` id, or the `task` of an outcome): its state, questions and result. */
  task(id: string): Promise<TaskRecord | undefined>;
  /** The call's outcome once it ends (complete; a failure throws its McpxError), driving a modern call let go by its asker. */
  result<R = TaskResult>(taskId: string, options?: ResultOptions): Promise<CallOutcome<R>>;
  /**
   * Set once this process lost its lease on a shared store (it stalled past it, and another process took its calls
   * over): the LEASE_LOST error every new call (and a result it would have to drive) then throws. Close the instance
   * and create a new one to make calls again.
   */
  readonly lost: McpxError | undefined;
}

const POLL_MS = 200;

const LOST = 'this process stalled past its lease and another took its calls over';

/** What an app's calls throw once it lost its lease: what happened and what to do (close, create a new instance). */
export function appLeaseLostError(holder: string, leaseMs: number, store: string, task?: string): McpxError {
  return new McpxError(
    'LEASE_LOST',
    `this mcpx instance runs no more calls: its process was paused longer than its lease on the shared ${store} ` +
      `store (MCPX_LEASE_MS ${leaseMs} ms: a suspended machine, a stopped or starved process), and another mcpx ` +
      `process took over the calls it held, so this instance stopped driving calls (two processes never drive one ` +
      `call). Close it and create a new one (createMcpx({ store })) to make new calls. Calls that were waiting on ` +
      `questions go on where they were taken over: answer them with answer() or \`mcpx elicit answer\`, read their ` +
      `results with result() on the new instance or \`mcpx task result\`` +
      (task ? ` (this call: ${task}; its answers are stored, and whoever asks for its result resumes it).` : '.'),
    { data: { holder, leaseMs, store, restart: true, ...(task ? { task } : {}) } },
  );
}

export async function createDurableMcpx(
  options: McpxOptions & { store: StoreOption },
  createPlain: (options: McpxOptions) => Promise<Mcpx>,
): Promise<DurableMcpx> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  // The config and policy are read before the store opens, so a bad one leaves nothing open.
  const loaded = loadConfig({ ...(options.config !== undefined ? { config: options.config } : {}), cwd, env });
  const configPath = loaded.path;
  const chosen = options.policy === undefined ? loaded.policy : policyOf(options.policy);
  const ownsStore = typeof options.store === 'string';
  const store = typeof options.store === 'string' ? await openStoreUrl(options.store, cwd) : toBrokerStore(options.store);
  const holder = `app-${randomBytes(8).toString('hex')}`;
  const binding: SessionBinding = options.session
    ? { session: options.session, sessionSource: 'explicit' }
    : resolveSession(env, { ...(configPath ? { configPath } : {}), cwd });
  const broker = createBroker({ store, allowAnySession: true });
  const tasks = createTaskStore(store.keyv);
  const leases = openLeases(store);
  let lease: Awaited<ReturnType<typeof keepLease>> | undefined;
  let lost: McpxError | undefined;
  const { store: _store, policy: _policy, session: _session, ...plain } = options;
  const ttlMs = options.elicitTtlMs ?? chosen.ttlMs;
  let inner: Mcpx | undefined;
  const instance = newInstance();
  // Its tasks name its lease (when it holds one), so an answerer can tell it died (tasks/delivery.ts).
  const runner: TaskRunner = createTaskRunner({
    broker,
    store: tasks,
    holder,
    pid: process.pid,
    ...(leases ? { instance } : {}),
    host: async () => inner!,
  });
  // A held legacy call's answer is delivered by its holder, or refused (ELICITATION_ABANDONED) if it died.
  const respondHeld = heldResponder(broker, leaseMsFromEnv(env));
  try {
    // On a shared store this process holds a lease, so a call it drove is taken over by another once it dies.
    // Lost (we stalled past it and another process took our calls): we stop driving them, writing nothing over its.
    if (leases)
      lease = await keepLease(leases, holder, leaseMsFromEnv(env), instance, () => {
        lost = appLeaseLostError(holder, leaseMsFromEnv(env), store.kind);
        void runner.close(LOST, { lost: true });
      });
    inner = await createPlain({
      ...plain,
      // The policy first, then the host's onElicit; unanswered, the question waits in the store for anyone.
      onElicit: createElicitationPipeline({
        broker,
        policy: chosen,
        session: binding,
        env,
        modeOf: (question) => runner.elicitModeOf(question.callId),
        answerers: options.onElicit ? [{ kind: 'script', by: 'api', name: 'onElicit', answer: options.onElicit }] : [],
      }),
      answerLater: true,
      ...(ttlMs !== undefined ? { elicitTtlMs: ttlMs } : {}),
    });
  } catch (error) {
    await lease?.stop();
    await broker.close();
    if (ownsStore) await store.close();
    throw error;
  }
  const first = inner;
  const started = new Set<string>();

  async function start<R>(input: Parameters<TaskRunner['start']>[0]): Promise<CallOutcome<R>> {
    if (lost) throw lost;
    const step = await runner.start(input);
    started.add(step.task.id);
    return outcomeOf<R>(step);
  }

  async function questionsOf(task: TaskRecord): Promise<Question[]> {
    const requests = await Promise.all(task.waitingOn.map((id) => broker.get(id)));
    return requests.filter((r): r is ElicitRequest => r !== undefined).map(questionOfRequest);
  }

  const session = (): string => binding.session;

  const durable: DurableMcpx = {
    ...first,
    configPath: first.configPath,
    broker,
    callTool: (server, tool, args = {}, callOptions = {}) =>
      start({
        server,
        tool,
        arguments: args,
        session: session(),
        sessionSource: binding.sessionSource,
        ...(callOptions.parent ? { parent: callOptions.parent } : {}),
      }),
    getPrompt: (server, name, args = {}, callOptions = {}) =>
      start({
        server,
        tool: name,
        method: 'prompts/get',
        arguments: args,
        session: session(),
        ...(callOptions.parent ? { parent: callOptions.parent } : {}),
      }),
    readResource: (server, uri, callOptions = {}) =>
      start({
        server,
        tool: uri,
        method: 'resources/read',
        arguments: {},
        session: session(),
        ...(callOptions.parent ? { parent: callOptions.parent } : {}),
      }),
    async answer(id, answer, answerOptions = {}) {
      const { answer: stored } = await respondHeld({
        id,
        action: answer.action,
        ...(answer.action === 'accept' && answer.content !== undefined ? { content: answer.content } : {}),
        by: answerOptions.by ?? 'api',
      });
      return stored;
    },
    pending: (filter = {}) => broker.pending(filter),
    task: (id) => tasks.get(id),

    async result<R>(id: string, resultOptions: ResultOptions = {}): Promise<CallOutcome<R>> {
      const deadline = resultOptions.timeoutMs === undefined ? Infinity : Date.now() + resultOptions.timeoutMs;
      for (;;) {
        resultOptions.signal?.throwIfAborted();
        const left = deadline - Date.now();
        const record = await runner.wait(id, {
          ...(Number.isFinite(left) ? { timeoutMs: Math.max(0, left) } : {}),
          ...(resultOptions.signal ? { signal: resultOptions.signal } : {}),
        });
        if (!record)
          throw new McpxError(
            'TASK_NOT_FOUND',
            `No call ${id} in this store: it never existed here or its record has expired (records are kept a week).`,
            { data: { id } },
          );
        if (record.state === 'complete' || record.state === 'failed') return outcomeOf<R>(stepOf(record, []));
        const drivenHere = !lost && runner.taskOfCall(record.callId) === record.id;
        // Lost our lease: we drive nothing more (nor judge others); a call nobody drives is another process's to resume.
        if (lost && !drivenHere && isModernRound(record) && (!record.holder || (await processHolderGone(record, leases))))
          throw appLeaseLostError(holder, leaseMsFromEnv(env), store.kind, record.id);
        const takeable =
          !lost && !drivenHere && (resultOptions.adopt ? isModernRound(record) : await canTakeOver(record, leases));
        // Exactly one process wins the claim and resumes the call; a loser follows the record the winner writes.
        if (takeable && (await tasks.claim(record))) {
          started.add(record.id);
          await runner.adopt(record);
          continue;
        }
        if (Date.now() >= deadline) return outcomeOf<R>(stepOf(record, await questionsOf(record)));
        // Held by another process (or here, past a timeout): its record changes when the call moves on.
        if (!drivenHere)
          await sleep(
            Math.min(POLL_MS, Math.max(0, deadline - Date.now())),
            undefined,
            resultOptions.signal ? { signal: resultOptions.signal } : {},
          );
      }
    },

    get lost() {
      return lost;
    },
    async close() {
      await runner.close('the process that asked closed');
      // Modern calls this process was driving are let go: whoever asks for their result next resumes them (unless
      // the lease was lost: they are another process's now, and we write nothing over them).
      if (!lost) await releaseHeld(tasks, started, holder, undefined);
      await lease?.stop();
      await first.close();
      await broker.close();
      if (ownsStore) await store.close();
    },
  };
  return durable;
}

function policyOf(input: PolicyOption): Policy {
  const { ttlMs, ...rest } = input as Record<string, unknown>;
  return parsePolicy(ttlMs === undefined ? rest : { ...rest, ttl: ttlMs });
}

function stepOf(task: TaskRecord, questions: Question[]): TaskStep {
  if (task.state === 'complete') return { status: 'complete', task, result: task.result! };
  if (task.state === 'failed')
    return { status: 'failed', task, error: task.error ?? { code: 'CALL_FAILED', message: 'the call failed' } };
  return { status: 'input-required', task, questions };
}

/** A step as the Node API's outcome; the task id rides on it, a failure is the call's McpxError. */
function outcomeOf<R>(step: TaskStep): CallOutcome<R> {
  const { task } = step;
  const base = {
    callId: task.callId,
    task: task.id,
    server: task.server,
    tool: task.tool,
    ...(task.method ? { method: task.method } : {}),
  };
  if (step.status === 'complete') return { ...base, status: 'complete', result: step.result as R };
  if (step.status === 'input-required') return { ...base, status: 'input-required', questions: step.questions };
  throw new McpxError(step.error.code as McpxErrorCode, step.error.message, {
    data: { ...(step.error.data ?? {}), task: task.id },
  });
}

/** A stored question as pending() lists it: the handler's view, with its key in the modern round's inputRequests. */
function questionOfRequest(request: ElicitRequest): Question {
  return { ...questionOf(request), ...(request.key ? { key: request.key } : {}) };
}
