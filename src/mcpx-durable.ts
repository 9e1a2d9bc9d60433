/**
 * createMcpx({ store }): calls whose questions live where the host says. A question nobody answers here (the
 * policy, then `onElicit`) is opened in the store under its `elc-` id, and the call is a task (`tsk-`) recorded
 * beside it, so any process on the same store can list and answer it and read the call's result. This module only
 * adapts the durable host (src/host) to the Node API's outcomes.
 */
import { randomBytes } from 'node:crypto';
import type { Keyv } from 'keyv';
import type { StoreBroker } from './broker/index.js';
import { resolveSession, type SessionBinding } from './broker/index.js';
import { toBrokerStore } from './broker/index.js';
import { openStoreUrl } from './broker/index.js';
import type { AnsweredBy, BrokerStore, Elicitation, PendingFilter, StoredAnswer } from './broker/index.js';
import type { CallOutcome } from './client/index.js';
import { McpxError, type McpxErrorCode } from './errors.js';
import { loadConfig } from './config/load.js';
import { parsePolicy, type Policy, type PolicyMode } from './policy/index.js';
import type { StartInput } from './tasks/runner.js';
import type { TaskRecord, TaskResult, TaskStep } from './tasks/types.js';
import type { Answer } from './types.js';
import type { Mcpx, McpxOptions } from './mcpx.js';
import { createHost } from './host/host.js';
import type { ResultOptions } from './host/results.js';

export type { ResultOptions };

/** Where questions live: a store of ours (openSqliteStore, openRedisStore, ...), a keyv instance over one, or a store URL. */
export type StoreOption = BrokerStore | Keyv | string;

/** The `elicit` block of a config (`{ mode, ttl, audience, rules }`), or a Policy from `parsePolicy`. */
export type PolicyOption = Policy | { mode?: PolicyMode; ttl?: number | string; audience?: 'person' | 'any'; rules?: unknown[] };

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

export async function createDurableMcpx(options: McpxOptions & { store: StoreOption }): Promise<DurableMcpx> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  // The config and policy are read before the store opens, so a bad one leaves nothing open.
  const loaded = loadConfig({ ...(options.config !== undefined ? { config: options.config } : {}), cwd, env });
  const configPath = loaded.path;
  const chosen = options.policy === undefined ? loaded.policy : policyOf(options.policy);
  const ownsStore = typeof options.store === 'string';
  const store = typeof options.store === 'string' ? await openStoreUrl(options.store, cwd) : toBrokerStore(options.store);
  const binding: SessionBinding = options.session
    ? { session: options.session, sessionSource: 'explicit' }
    : resolveSession(env, { ...(configPath ? { configPath } : {}), cwd });
  const { store: _store, policy: _policy, session: _session, ...plain } = options;
  const ttlMs = options.elicitTtlMs ?? chosen.ttlMs;
  const host = await createHost({
    store,
    ownsStore,
    env,
    holder: `app-${randomBytes(8).toString('hex')}`,
    voice: 'app',
    policy: chosen,
    session: binding,
    callerModes: true,
    answerers: options.onElicit ? [{ kind: 'script', by: 'api', name: 'onElicit', answer: options.onElicit }] : [],
    connections: { ...plain, ...(ttlMs !== undefined ? { elicitTtlMs: ttlMs } : {}) },
    closeReason: 'the process that asked closed',
  });
  const first = host.mcpx;
  const start = async <R>(input: Omit<StartInput, 'session'>): Promise<CallOutcome<R>> =>
    outcomeOf<R>(await host.start({ ...input, session: binding.session }));
  const parentOf = (callOptions: { parent?: string }) => (callOptions.parent ? { parent: callOptions.parent } : {});

  return {
    ...first,
    configPath: first.configPath,
    broker: host.broker,
    callTool: (server, tool, args = {}, callOptions = {}) =>
      start({ server, tool, arguments: args, sessionSource: binding.sessionSource, ...parentOf(callOptions) }),
    getPrompt: (server, name, args = {}, callOptions = {}) =>
      start({ server, tool: name, method: 'prompts/get', arguments: args, ...parentOf(callOptions) }),
    readResource: (server, uri, callOptions = {}) =>
      start({ server, tool: uri, method: 'resources/read', arguments: {}, ...parentOf(callOptions) }),
    answer: (id, answer, answerOptions) => host.answer(id, answer, answerOptions),
    pending: (filter) => host.pending(filter),
    task: (id) => host.task(id),
    result: async <R>(id: string, resultOptions?: ResultOptions) => outcomeOf<R>(await host.result(id, resultOptions)),
    get lost() {
      return host.lost;
    },
    close: () => host.close(),
  };
}

function policyOf(input: PolicyOption): Policy {
  const { ttlMs, ...rest } = input as Record<string, unknown>;
  return parsePolicy(ttlMs === undefined ? rest : { ...rest, ttl: ttlMs });
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
